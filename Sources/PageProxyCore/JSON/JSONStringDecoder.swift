/// Decodes the contents of a JSON string that `JSONScanEngine` has already validated; its escape table, surrogate
/// joining and UTF-8 encoding are also the config reader's (`ConfigJSONReader`, which validates as it reads).
package enum JSONStringDecoder {
    /// The UTF-8 of the string whose raw bytes (between the quotes) are `raw`, with every escape decoded,
    /// `\u` surrogate pairs joined and a lone surrogate as U+FFFD.
    static func decode(_ raw: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var j = 0
        let count = raw.count
        while j < count {
            let byte = raw[j]
            guard byte == UInt8(ascii: "\\"), j + 1 < count else {
                output.append(byte)
                j += 1
                continue
            }
            let letter = raw[j + 1]
            j += 2
            if letter == UInt8(ascii: "u") {
                guard var scalar = hex4(raw, at: j) else { continue }
                j += 4
                if isHighSurrogate(scalar), j + 6 <= count, raw[j] == UInt8(ascii: "\\"),
                    raw[j + 1] == UInt8(ascii: "u"), let low = hex4(raw, at: j + 2), let joined = joinSurrogates(scalar, low)
                {
                    scalar = joined
                    j += 6
                }
                appendUTF8(scalar, to: &output)
            } else {
                output.append(unescaped(letter) ?? letter)
            }
        }
        return output
    }

    /// The byte a one-letter escape (`\n`, `\"` …) stands for (RFC 8259 §7); nil for `u` and for letters JSON does
    /// not allow.
    @inline(__always)
    package static func unescaped(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): letter
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// Whether a `\u` value is the first half of a UTF-16 surrogate pair.
    package static func isHighSurrogate(_ value: UInt32) -> Bool { value & 0xFC00 == 0xD800 }

    /// The scalar a UTF-16 surrogate pair stands for; nil when `low` is not the second half of one.
    package static func joinSurrogates(_ high: UInt32, _ low: UInt32) -> UInt32? {
        guard low & 0xFC00 == 0xDC00 else { return nil }
        return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
    }

    /// The value of one hexadecimal digit, or nil.
    @inline(__always)
    package static func hexValue(_ byte: UInt8) -> UInt32? {
        if byte &- UInt8(ascii: "0") < 10 { return UInt32(byte &- UInt8(ascii: "0")) }
        let lower = byte | 0x20
        if lower &- UInt8(ascii: "a") < 6 { return UInt32(lower &- UInt8(ascii: "a")) + 10 }
        return nil
    }

    private static func hex4(_ raw: UnsafeBufferPointer<UInt8>, at j: Int) -> UInt32? {
        guard j + 4 <= raw.count else { return nil }
        var value: UInt32 = 0
        for k in 0..<4 {
            guard let digit = hexValue(raw[j + k]) else { return nil }
            value = value << 4 | digit
        }
        return value
    }

    /// Appends the UTF-8 of `scalar`; a lone surrogate (which the scanner lets through, RFC 8259 §8.2) becomes
    /// U+FFFD, as UTF-8 has no encoding for it.
    package static func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        let value = (0xD800...0xDFFF).contains(scalar) ? 0xFFFD : scalar
        switch value {
        case 0..<0x80:
            output.append(UInt8(value))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | value >> 6))
            output.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | value >> 12))
            output.append(UInt8(0x80 | value >> 6 & 0x3F))
            output.append(UInt8(0x80 | value & 0x3F))
        default:
            output.append(UInt8(0xF0 | value >> 18))
            output.append(UInt8(0x80 | value >> 12 & 0x3F))
            output.append(UInt8(0x80 | value >> 6 & 0x3F))
            output.append(UInt8(0x80 | value & 0x3F))
        }
    }
}

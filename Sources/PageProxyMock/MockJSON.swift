import PageProxyCore

/// Small helpers for writing compact JSON text (strings are escaped by Core's `JSONText`, the package's one escaper).
package enum MockJSON {
    /// A JSON string literal, or `null` for nil.
    package static func stringOrNull(_ text: String?) -> String {
        text.map(JSONText.string) ?? "null"
    }

    /// The bytes of `prefix`, then `array`, then `suffix` — for envelopes around an item array.
    package static func envelope(_ prefix: String, _ array: [UInt8], _ suffix: String) -> [UInt8] {
        Array(prefix.utf8) + array + Array(suffix.utf8)
    }
}

extension MockJSON {
    /// Compact JSON as Python's `json` module writes it by default (Flask, django-ninja): every non-ASCII character
    /// escaped (`\u00e9`, a surrogate pair past U+FFFF) and, when `spaced`, `", "` and `": "` between members and
    /// elements (Flask writes compact separators, django-ninja the default ones).
    package static func pythonStyle(_ compact: [UInt8], spaced: Bool) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(compact.count + compact.count / 4)
        var inString = false
        var escaped = false
        for scalar in String(decoding: compact, as: UTF8.self).unicodeScalars {
            if scalar.value >= 0x80 {
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16)
                    output += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
                }
                continue
            }
            let byte = UInt8(scalar.value)
            output.append(byte)
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if spaced, byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":") {
                output.append(UInt8(ascii: " "))
            }
        }
        return output
    }
}

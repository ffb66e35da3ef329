import PageProxyCore
/// A strict RFC 8259 reader producing `ConfigValue`s, with the byte offset of the first error.
///
/// Hand-written rather than `JSONSerialization` so that booleans stay distinct from numbers on every
/// platform, integer literals stay distinct from fractions, and errors can be reported by line and column.
struct ConfigJSONReader {
    /// Where and why the text is not JSON.
    struct SyntaxError: Error, Equatable {
        var offset: Int
        var message: String

        /// 1-based line and column (in bytes) of `offset` within `bytes`.
        func location(in bytes: [UInt8]) -> (line: Int, column: Int) {
            var line = 1
            var lineStart = 0
            for index in 0..<min(offset, bytes.count) where bytes[index] == UInt8(ascii: "\n") {
                line += 1
                lineStart = index + 1
            }
            return (line, offset - lineStart + 1)
        }
    }

    private static let maximumDepth = 256

    private let bytes: [UInt8]
    private var position = 0
    private var depth = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Reads one JSON document that must fill `bytes` (surrounding whitespace and a UTF-8 BOM aside).
    static func read(_ bytes: [UInt8]) throws(SyntaxError) -> ConfigValue {
        var reader = ConfigJSONReader(bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { reader.position = 3 }
        reader.skipWhitespace()
        guard reader.position < bytes.count else { throw reader.fail("the file is empty") }
        let value = try reader.readValue()
        reader.skipWhitespace()
        guard reader.position == bytes.count else { throw reader.fail("unexpected text after the end of the document") }
        return value
    }

    private func fail(_ message: String, at offset: Int? = nil) -> SyntaxError {
        SyntaxError(offset: offset ?? position, message: message)
    }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
        }
    }

    private mutating func readValue() throws(SyntaxError) -> ConfigValue {
        guard let byte = current else { throw fail("unexpected end of the file; expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try readObject()
        case UInt8(ascii: "["): return try readArray()
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try readLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try readLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try readLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw fail("unexpected character \(Self.describe(byte)); expected a value")
        }
    }

    private mutating func readLiteral(_ word: String) throws(SyntaxError) {
        let expected = Array(word.utf8)
        guard bytes[position...].starts(with: expected) else {
            throw fail("invalid literal; expected \(word)")
        }
        position += expected.count
    }

    private mutating func enter() throws(SyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw fail("nested more than \(Self.maximumDepth) levels deep") }
    }

    private mutating func readObject() throws(SyntaxError) -> ConfigValue {
        try enter()
        position += 1
        var members: [ConfigValue.Member] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else {
                throw fail(current == nil ? "unexpected end of the file inside an object" : "expected a key in double quotes")
            }
            let key = try readString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw fail("expected ':' after the key \"\(key)\"") }
            position += 1
            skipWhitespace()
            members.append(ConfigValue.Member(key: key, value: try readValue()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(members)
            case nil: throw fail("unexpected end of the file inside an object")
            default: throw fail("expected ',' or '}' after an object member")
            }
        }
    }

    private mutating func readArray() throws(SyntaxError) -> ConfigValue {
        try enter()
        position += 1
        var elements: [ConfigValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try readValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            case nil: throw fail("unexpected end of the file inside an array")
            default: throw fail("expected ',' or ']' after an array element")
            }
        }
    }

    private mutating func readString() throws(SyntaxError) -> String {
        let start = position
        position += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = current else { throw fail("unterminated string", at: start) }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw fail("the string is not valid UTF-8", at: start)
                }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                try readEscape(into: &utf8)
            case 0..<0x20:
                throw fail("control character \(Self.describe(byte)) inside a string; escape it")
            default:
                utf8.append(byte)
                position += 1
            }
        }
    }

    private mutating func readEscape(into utf8: inout [UInt8]) throws(SyntaxError) {
        guard let byte = current else { throw fail("unterminated escape sequence") }
        position += 1
        // The escape table, surrogate joining and UTF-8 are the JSON scanner's (`JSONStringDecoder`); only the
        // errors, with their positions, are the config reader's own.
        if let unescaped = JSONStringDecoder.unescaped(byte) {
            utf8.append(unescaped)
            return
        }
        guard byte == UInt8(ascii: "u") else { throw fail("invalid escape sequence \\\(Self.describe(byte))", at: position - 2) }
        var scalar = try readHex4()
        if JSONStringDecoder.isHighSurrogate(scalar) {
            guard bytes[position...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else {
                throw fail("unpaired UTF-16 surrogate in \\u escape")
            }
            position += 2
            guard let joined = JSONStringDecoder.joinSurrogates(scalar, try readHex4()) else {
                throw fail("unpaired UTF-16 surrogate in \\u escape")
            }
            scalar = joined
        }
        guard Unicode.Scalar(scalar) != nil else { throw fail("unpaired UTF-16 surrogate in \\u escape") }
        JSONStringDecoder.appendUTF8(scalar, to: &utf8)
    }

    private mutating func readHex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = JSONStringDecoder.hexValue(byte) else {
                throw fail("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    private mutating func readNumber() throws(SyntaxError) -> ConfigValue {
        let start = position
        var isInteger = true
        if current == UInt8(ascii: "-") { position += 1 }
        if current == UInt8(ascii: "0") {
            position += 1
            if let byte = current, Self.isDigit(byte) { throw fail("leading zeros are not allowed in numbers", at: start) }
        } else {
            guard skipDigits() else { throw fail("expected a digit", at: position) }
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard skipDigits() else { throw fail("expected a digit after the decimal point") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard skipDigits() else { throw fail("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger, let integer = Int(text) { return .integer(integer) }
        guard let number = Double(text), number.isFinite else { throw fail("the number \(text) is out of range", at: start) }
        return .number(number)
    }

    /// Skips `[0-9]*`; returns whether there was at least one digit.
    private mutating func skipDigits() -> Bool {
        let start = position
        while let byte = current, Self.isDigit(byte) { position += 1 }
        return position > start
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x\(String(byte, radix: 16, uppercase: true))"
    }
}

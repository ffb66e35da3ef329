/// Why `JSONScanner` rejected a document. Every syntax error carries the byte offset where it was found.
///
/// New cases may be added in a minor release (a new check of the input); a `switch` over it should end with
/// `default:`. ``offset`` tells a syntax error from an items-path error without naming every case.
public enum JSONScanError: Error, Equatable, CustomStringConvertible {
    /// The input ended inside a value (or was empty).
    case unexpectedEnd(offset: Int)
    /// A byte that cannot start or continue a value here.
    case unexpectedByte(UInt8, offset: Int)
    /// A `t`, `f` or `n` not followed by the rest of `true`, `false` or `null`.
    case invalidLiteral(offset: Int)
    /// A backslash in a string followed by something other than `" \ / b f n r t u`.
    case invalidEscape(offset: Int)
    /// `\u` not followed by four hexadecimal digits.
    case invalidUnicodeEscape(offset: Int)
    /// Bytes in a string that are not well-formed UTF-8 (overlong, surrogate, above U+10FFFF, truncated).
    case invalidUTF8(offset: Int)
    /// A raw byte below 0x20 inside a string.
    case controlCharacterInString(offset: Int)
    /// A number outside the RFC 8259 grammar (`01`, `1.`, `1e`, `-`).
    case invalidNumber(offset: Int)
    /// Objects and arrays nested deeper than `limit`.
    case tooDeep(limit: Int, offset: Int)
    /// Something other than whitespace after the document.
    case trailingData(offset: Int)
    /// The items path does not exist in the document.
    case itemsNotFound(path: String)
    /// The items path names something other than an array or `null`.
    case itemsNotAnArray(path: String, found: String)
    /// A document whose items lie past the offsets the scanner records (`limit` bytes: 2 GiB − 1; pages are at most
    /// 1 GiB).
    case tooLarge(limit: Int)

    /// What is wrong and at which byte.
    public var description: String {
        switch self {
        case .unexpectedEnd(let offset):
            "invalid JSON at byte \(offset): unexpected end of input"
        case .unexpectedByte(let byte, let offset) where offset == 0 && (byte == 0xFF || byte == 0xFE):
            // FF FE or FE FF: a UTF-16 byte order mark (retest12: the bare byte said nothing of why).
            "invalid JSON at byte 0: unexpected \(Self.show(byte)), the start of a UTF-16 byte order mark: JSON exchanged "
                + "between systems must be UTF-8 (RFC 8259 §8.1)"
        case .unexpectedByte(let byte, let offset):
            "invalid JSON at byte \(offset): unexpected \(Self.show(byte))"
        case .invalidLiteral(let offset):
            "invalid JSON at byte \(offset): invalid literal (expected true, false or null)"
        case .invalidEscape(let offset):
            "invalid JSON at byte \(offset): invalid escape sequence in string"
        case .invalidUnicodeEscape(let offset):
            "invalid JSON at byte \(offset): \\u must be followed by four hexadecimal digits"
        case .invalidUTF8(let offset):
            "invalid JSON at byte \(offset): invalid UTF-8 in string"
        case .controlCharacterInString(let offset):
            "invalid JSON at byte \(offset): unescaped control character in string"
        case .invalidNumber(let offset):
            "invalid JSON at byte \(offset): invalid number"
        case .tooDeep(let limit, let offset):
            "invalid JSON at byte \(offset): nested deeper than \(limit) levels"
        case .trailingData(let offset):
            "invalid JSON at byte \(offset): data after the end of the document"
        case .itemsNotFound(let path):
            "no items at path '\(path)'"
        case .itemsNotAnArray(let path, let found):
            "items at path '\(path)' are not an array but \(found)"
        case .tooLarge(let limit):
            "a document of more than \(limit) bytes is too large to scan for items"
        }
    }

    /// The byte offset of a syntax error; nil for the items-path errors and `tooLarge`.
    public var offset: Int? {
        switch self {
        case .unexpectedEnd(let offset), .unexpectedByte(_, let offset), .invalidLiteral(let offset), .invalidEscape(let offset),
            .invalidUnicodeEscape(let offset), .invalidUTF8(let offset),
            .controlCharacterInString(let offset), .invalidNumber(let offset), .tooDeep(_, let offset), .trailingData(let offset):
            offset
        case .itemsNotFound, .itemsNotAnArray, .tooLarge:
            nil
        }
    }

    /// `'}'` for a printable ASCII byte, `0x0A` otherwise.
    private static func show(_ byte: UInt8) -> String {
        if byte >= 0x21, byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "byte 0x0\(hex)" : "byte 0x\(hex)"
    }
}

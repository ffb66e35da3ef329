import Foundation
import PageProxyCore

/// Decides whether a route request's extra path (`/<route><subpath>`) may be appended to the upstream's base path.
///
/// Nothing in it may climb out of that base on an upstream that decodes, strips or normalises before it resolves
/// dot segments, so each segment is checked on its decoded form, never on the bytes as sent:
/// - percent-decoding must succeed: every `%` starts two hex digits and the bytes are UTF-8, which refuses
///   overlong forms such as `%c0%ae` (a `.` to lenient decoders) and stray bytes such as `%ff`;
/// - no segment is `.` or `..` before its first `;` (`..;x` is `..` to Tomcat and Spring, RFC 3986 §3.3 path
///   parameters), and none holds `/`, `\`, NUL or another control character;
/// - the same holds after Unicode compatibility mapping (NFKC turns `．．` and `／` into `..` and `/`), and after a
///   second decoding (`%252e%252e` is `..` to an upstream that decodes twice).
enum SubpathCheck {
    /// Whether every segment of `subpath` (still percent-encoded, as received) passes the rules above.
    static func isSafe(_ subpath: String) -> Bool {
        var subpath = subpath
        return subpath.withUTF8 { bytes in
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
                if !isSafe(segment: bytes[start..<end]) { return false }
                start = end + 1
            }
            return true
        }
    }

    private static func isSafe(segment: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        // Most segments hold no escape: they are checked as they are, without a copy.
        guard segment.contains(UInt8(ascii: "%")) else { return isSafe(decoded: segment) }
        guard let decoded = percentDecoded(segment) else { return false }
        return isSafe(decoded: decoded[...]) && isSafeDecodedAgain(decoded)
    }

    /// The rules on a decoded segment's bytes; a segment that is not ASCII must be UTF-8, and is checked again in
    /// its NFKC form.
    private static func isSafe(decoded bytes: some Collection<UInt8>) -> Bool {
        guard isPlain(bytes) else { return false }
        guard bytes.contains(where: { $0 >= 0x80 }) else { return true }
        guard let text = String(validating: bytes, as: UTF8.self) else { return false }
        return isPlain(text.precomposedStringWithCompatibilityMapping.utf8)
    }

    /// No `.` or `..` name before a `;`, and no `/`, `\` or control character: C0, DEL, or C1 (`C2 80`–`C2 9F`).
    private static func isPlain(_ bytes: some Collection<UInt8>) -> Bool {
        let name = bytes.prefix { $0 != UInt8(ascii: ";") }
        if name.elementsEqual(".".utf8) || name.elementsEqual("..".utf8) { return false }
        var afterC2 = false
        for byte in bytes {
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") { return false }
            if afterC2 && (0x80...0x9F).contains(byte) { return false }
            afterC2 = byte == 0xC2
        }
        return true
    }

    /// A decoded segment that still holds escapes, checked as an upstream that decodes twice would read it; a `%`
    /// that starts no escape (`100%`) is a literal there too.
    private static func isSafeDecodedAgain(_ bytes: [UInt8]) -> Bool {
        guard bytes.contains(UInt8(ascii: "%")), let again = percentDecoded(bytes) else { return true }
        return isSafe(decoded: again[...])
    }

    /// RFC 3986 §2.1 — `%` HEXDIG HEXDIG is one byte; nil when a `%` starts no such triplet.
    private static func percentDecoded(_ bytes: some Collection<UInt8>) -> [UInt8]? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var iterator = bytes.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                decoded.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(JSONStringDecoder.hexValue),
                let low = iterator.next().flatMap(JSONStringDecoder.hexValue)
            else { return nil }
            decoded.append(UInt8(high << 4 | low))
        }
        return decoded
    }
}

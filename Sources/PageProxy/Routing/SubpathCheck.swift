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
        subpath.utf8.split(separator: UInt8(ascii: "/")).allSatisfy { segment in
            guard let decoded = percentDecoded(segment), let text = String(validating: decoded, as: UTF8.self) else {
                return false
            }
            return isSafe(decoded: text) && isSafeDecodedAgain(text)
        }
    }

    /// The rules on a decoded segment, and on its NFKC form when it is not ASCII.
    private static func isSafe(decoded text: String) -> Bool {
        guard isPlain(text) else { return false }
        guard text.utf8.contains(where: { $0 >= 0x80 }) else { return true }
        return isPlain(text.precomposedStringWithCompatibilityMapping)
    }

    private static func isPlain(_ text: String) -> Bool {
        let scalars = text.unicodeScalars
        let name = String(String.UnicodeScalarView(scalars.prefix { $0 != ";" }))
        if name == "." || name == ".." { return false }
        return !scalars.contains { $0 == "/" || $0 == "\\" || $0.properties.generalCategory == .control }
    }

    /// A decoded segment that still holds escapes, checked as an upstream that decodes twice would read it; a `%`
    /// that starts no escape (`100%`) is a literal there too.
    private static func isSafeDecodedAgain(_ text: String) -> Bool {
        guard text.utf8.contains(UInt8(ascii: "%")), let again = percentDecoded(text.utf8) else { return true }
        guard let twice = String(validating: again, as: UTF8.self) else { return false }
        return isSafe(decoded: twice)
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

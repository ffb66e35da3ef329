import Foundation

/// Decides whether a route's extra path may be appended to the upstream's base path (DESIGN.md "Requests").
///
/// The check reads each segment in its decoded form, because that is what an upstream that decodes before it
/// resolves will see; a segment that cannot be decoded is refused rather than passed on still encoded
/// (`..%2f..%2fetc%ff` must not slip through because `%ff` is not UTF-8).
enum SubpathCheck {
    /// True when every segment percent-decodes to valid UTF-8 (malformed escapes, and overlong forms such as
    /// `%c0%ae`, RFC 3629 §3, do not) and none is a dot segment or holds a slash, backslash or control character.
    static func isSafe(_ subpath: Substring) -> Bool {
        subpath.split(separator: "/").allSatisfy(isSafeSegment)
    }

    private static func isSafeSegment(_ segment: Substring) -> Bool {
        guard let decoded = segment.removingPercentEncoding, isSafeText(decoded) else { return false }
        // A segment encoded twice (`%252e%252e`) is `..` to an upstream that decodes twice; a `%` that does not start
        // an escape (`100%25` decodes to `100%`) is ordinary text.
        guard decoded.contains("%"), let twice = decoded.removingPercentEncoding else { return true }
        return isSafeText(twice)
    }

    private static func isSafeText(_ text: String) -> Bool {
        // RFC 3986 §3.3 — `;` starts a segment's parameters, which Tomcat and Spring drop before resolving `..;`.
        let name = text.prefix { $0 != ";" }
        if name == "." || name == ".." { return false }
        return !text.unicodeScalars.contains { scalar in
            scalar == "/" || scalar == "\\" || scalar.properties.generalCategory == .control
        }
    }
}

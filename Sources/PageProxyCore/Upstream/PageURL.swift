import Foundation

/// An absolute `http` or `https` URL of an upstream page, split into the parts PageProxy works with.
///
/// The path and query stay percent-encoded exactly as given, so a link that an upstream wrote is requested
/// byte for byte as written.
public struct PageURL: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`, lowercased.
    public let scheme: String
    /// The host name or address, lowercased, without brackets.
    public let host: String
    /// The port, explicit or the scheme's default.
    public let port: Int
    /// The percent-encoded path, never empty.
    public let path: String
    /// The percent-encoded query without `?`, or nil when there is none.
    public let query: String?

    /// The scheme, host and port that a next link must share (DESIGN.md: links elsewhere are never followed).
    public var origin: Origin { Origin(scheme: scheme, host: host, port: port) }

    /// A URL's scheme, host and port: what two URLs must share to be of the same origin (RFC 6454).
    public struct Origin: Sendable, Hashable, CustomStringConvertible {
        /// `http` or `https`.
        public let scheme: String
        /// The host, lowercased.
        public let host: String
        /// The port, explicit or the scheme's default.
        public let port: Int
        /// `scheme://host`, with `:port` when it is not the scheme's default.
        public var description: String {
            let isDefault = (scheme == "http" && port == 80) || (scheme == "https" && port == 443)
            let hostText = PageURL.isIPv6(host) ? "[\(host)]" : host
            return isDefault ? "\(scheme)://\(hostText)" : "\(scheme)://\(hostText):\(port)"
        }
    }

    /// Parses an absolute `http` or `https` URL; `nil` for anything else.
    public init?(string: String) {
        guard let components = URLComponents(string: string) else { return nil }
        self.init(components: components)
    }

    init?(components: URLComponents) {
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else { return nil }
        self.scheme = scheme
        // Foundation on Linux keeps an IPv6 literal's brackets in `host`; they are added back where text is built.
        let isBracketed = host.hasPrefix("[") && host.hasSuffix("]") && host.count > 2
        self.host = (isBracketed ? String(host.dropFirst().dropLast()) : host).lowercased()
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
        let path = components.percentEncodedPath
        self.path = path.isEmpty ? "/" : path
        self.query = components.percentEncodedQuery
    }

    /// A URL from its parts; `path` and `query` are percent-encoded already, and an empty path is `/`.
    public init(scheme: String, host: String, port: Int, path: String, query: String?) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path.isEmpty ? "/" : path
        self.query = query
    }

    /// The request target for an HTTP/1.1 request line: path and query.
    public var requestTarget: String {
        query.map { path + "?" + $0 } ?? path
    }

    /// The `Host` header value.
    public var hostHeader: String {
        let hostText = Self.isIPv6(host) ? "[\(host)]" : host
        let isDefault = (scheme == "http" && port == 80) || (scheme == "https" && port == 443)
        return isDefault ? hostText : "\(hostText):\(port)"
    }

    /// Whether `host` is an IPv6 address (it holds a `:`), written in brackets in a URL. On bytes: Foundation's
    /// `contains` was a per-page cost of a walk through the cache (the URL is part of each page's cache key).
    static func isIPv6(_ host: String) -> Bool {
        host.utf8.contains(UInt8(ascii: ":"))
    }

    /// The whole URL as text.
    public var description: String { origin.description + requestTarget }

    /// Hashes the path and the query only: the URLs of one walk share their origin (and equal URLs have equal paths
    /// and queries), and hashing every part was half of entering a page URL in the walk's set (issue 13, eighth pass).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(query)
    }

    /// How many UTF-8 bytes `description` has, worked out from the parts (no text is made).
    package var descriptionByteCount: Int {
        let hostCount = host.utf8.count + (Self.isIPv6(host) ? 2 : 0)
        let portCount = hasDefaultPort ? 0 : 1 + Self.decimalDigits(port)
        return scheme.utf8.count + 3 + hostCount + portCount + path.utf8.count + (query.map { 1 + $0.utf8.count } ?? 0)
    }

    /// Appends `description`'s UTF-8 bytes to `bytes`, part by part, with no `String` made (issue 13, eighth pass: a
    /// page's cache key digests its URL, and the URL's text was a third of working out a key).
    package func appendDescription(to bytes: inout [UInt8]) {
        bytes.append(contentsOf: scheme.utf8)
        bytes.append(contentsOf: "://".utf8)
        let isBracketed = Self.isIPv6(host)
        if isBracketed { bytes.append(UInt8(ascii: "[")) }
        bytes.append(contentsOf: host.utf8)
        if isBracketed { bytes.append(UInt8(ascii: "]")) }
        if !hasDefaultPort {
            bytes.append(UInt8(ascii: ":"))
            Self.appendDecimal(port, to: &bytes)
        }
        bytes.append(contentsOf: path.utf8)
        if let query {
            bytes.append(UInt8(ascii: "?"))
            bytes.append(contentsOf: query.utf8)
        }
    }

    /// Whether the port is the scheme's default, left out of the text.
    private var hasDefaultPort: Bool { (scheme == "http" && port == 80) || (scheme == "https" && port == 443) }

    /// The length of `value` in decimal, a minus sign included.
    static func decimalDigits(_ value: Int) -> Int {
        var (count, rest) = (value < 0 ? 2 : 1, value.magnitude / 10)
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return count
    }

    /// Appends `value` in decimal, as `String(value)` spells it.
    static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let start = bytes.count
        var rest = value.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[start...].reverse()
    }

    /// Resolves a link as written in a header or body (absolute, or relative to this URL: RFC 3986 §5).
    public func resolving(_ reference: String) -> PageURL? {
        guard let base = URL(string: description), let resolved = URL(string: reference, relativeTo: base),
            let components = URLComponents(url: resolved.absoluteURL, resolvingAgainstBaseURL: true)
        else { return nil }
        return PageURL(components: components)
    }

    /// The raw (still percent-encoded) query pairs in order.
    public var queryPairs: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&").map { pair in
            if let equals = pair.firstIndex(of: "=") {
                return (String(pair[..<equals]), String(pair[pair.index(after: equals)...]))
            }
            return (String(pair), "")
        }
    }

    /// Whether `other` asks for the same page: same origin and path, and the same query parameters in any order
    /// (an upstream's links need not order them as PageProxy's guesses do).
    public func isSamePage(as other: PageURL) -> Bool {
        guard origin == other.origin, path == other.path else { return false }
        if query == other.query { return true }
        let sorted = { (pairs: [(name: String, value: String)]) in pairs.map { $0.name + "=" + $0.value }.sorted() }
        return sorted(queryPairs) == sorted(other.queryPairs)
    }

    /// The decoded value of the first query parameter called `name` (matched after decoding, so `page%5Bnumber%5D`
    /// matches `page[number]`).
    public func queryValue(_ name: String) -> String? {
        QueryBytes.rawValue(of: name, in: query).flatMap { Self.decodeQueryComponent($0) }
    }

    /// This URL with parameter `name` set to `value` (replacing every occurrence, or appended at the end).
    public func settingQueryValue(_ value: String, for name: String) -> PageURL {
        replacingQuery(QueryBytes.query(settingValueOf: name, to: Self.encodeQueryComponent(value), in: query))
    }

    /// This URL with another (percent-encoded) query.
    func replacingQuery(_ query: String) -> PageURL {
        PageURL(scheme: scheme, host: host, port: port, path: path, query: query)
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func encodeQueryComponent(_ text: String) -> String {
        // Most components (page numbers, cursors) need no encoding: skip Foundation's per-call character set
        // work, which profiling showed at a third of a cached walk's CPU (issue 13).
        if text.utf8.allSatisfy(isUnreserved) { return text }
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// A query component with its percent-escapes decoded; nil when an escape is malformed. Text with no `%` is
    /// returned as it is, without Foundation's decoding (most names and values have none).
    package static func decodeQueryComponent(_ text: String) -> String? {
        text.utf8.contains(UInt8(ascii: "%")) ? text.removingPercentEncoding : text
    }

    /// RFC 3986 §2.3 — unreserved characters: ASCII letters and digits, `-`, `.`, `_`, `~`.
    private static let unreserved: CharacterSet = {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._~")
        return allowed
    }()

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}

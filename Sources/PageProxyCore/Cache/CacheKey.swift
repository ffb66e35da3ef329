/// Names one cached page: a SHA-256 of the method, the full upstream URL, every header PageProxy sends with it, and
/// the route's own CA file if it has one.
///
/// DESIGN.md: a response fetched with one `Authorization` is never served to a request with another. Every header
/// sent upstream (the route's own and those forwarded from the client) may change the answer, so all of them are
/// part of the key. The key is hexadecimal, so no request path can name a file outside the cache directory.
package struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    /// 64 lowercase hexadecimal digits.
    package let hex: String
    /// The number the first 16 digits spell: what the key hashes as (issue 13, seventh pass: the store's maps hash
    /// a key a few times a lookup, and 64 characters cost more than 64 bits of a SHA-256, which are as well spread).
    private let leading: UInt64

    /// The key of `request`; a key computed before for the same inputs is taken from `memo` (issue 13: a SHA-256
    /// per page was 7 % of a walk through the cache).
    package init(_ request: UpstreamRequest, memo: CacheKeyMemo? = .shared) {
        let input = Self.input(request)
        hex = memo.map { memo in memo.hex(for: input) { Self.digest(input) } } ?? Self.digest(input)
        leading = Self.leadingValue(hex)
    }

    /// What the key digests: each part length-prefixed, so no two different requests give the same input.
    static func input(_ request: UpstreamRequest) -> [UInt8] {
        var input: [UInt8] = []
        func part(_ text: String) {
            input.append(contentsOf: String(text.utf8.count).utf8)
            input.append(0x3A)
            input.append(contentsOf: text.utf8)
        }
        part("pageproxy-cache-key-v1")
        part(request.method.rawValue)
        part(request.url.description)
        // Field order on the wire does not change the answer; name case never does.
        let fields = request.headers.map { (name: String(decoding: $0.name.utf8.map(HTTPHeaders.lowercased), as: UTF8.self), value: $0.value) }
        for field in fields.enumerated().sorted(by: { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }) {
            part(field.element.name)
            part(field.element.value)
        }
        // The CA a route trusts for its upstream: a page fetched through one route's own CA (a private one, or a
        // proxy's) is not served to a route that would not have trusted it. A name no header can have (NUL); keys of
        // requests without one are unchanged.
        if let caFile = request.caFile {
            part("\u{0}ca-file")
            part(caFile)
        }
        return input
    }

    private static func digest(_ input: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(input)
        return SHA256.hex(hasher.finalize())
    }

    /// A key read back from a file name; nil unless it is 64 lowercase hexadecimal digits.
    package init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        self.hex = hex
        leading = Self.leadingValue(hex)
    }

    /// The value of the first 16 hexadecimal digits of `hex` (lowercase, as every key is).
    private static func leadingValue(_ hex: String) -> UInt64 {
        hex.utf8.prefix(16).reduce(0) { value, digit in value << 4 | UInt64(digit <= 0x39 ? digit &- 0x30 : digit &- 0x57) }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(leading)
    }

    package static func == (left: CacheKey, right: CacheKey) -> Bool {
        left.leading == right.leading && left.hex == right.hex
    }

    /// The fan-out directory (the first two digits), so no one directory holds every entry.
    package var directoryName: String { String(hex.prefix(2)) }

    /// The entry's file name inside its fan-out directory.
    package var fileName: String { hex + CacheKey.entrySuffix }

    package static let entrySuffix = ".entry"

    package var description: String { hex }
}

/// Names one cached page: a SHA-256 of the method, the full upstream URL (its query in canonical order), every
/// header PageProxy sends with it, and the route's own CA file if it has one.
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
    /// The memo is asked by the URL as spelled, so a hit costs no sorting; the key digests the canonical spelling.
    package init(_ request: UpstreamRequest, memo: CacheKeyMemo? = .shared) {
        let canonical = { Self.input(request, url: Self.canonicalURL(request.url)) }
        hex = memo.map { memo in memo.hex(for: Self.input(request, url: request.url.description)) { Self.digest(canonical()) } }
            ?? Self.digest(canonical())
        leading = Self.leadingValue(hex)
    }

    /// The URL as the key names it: the query's parameters in order of name, a name's repeats in their own order.
    ///
    /// One upstream page is often spelled two ways: a `lookahead` guess appends the page parameter
    /// (`per_page=10&page=2`) where the upstream's links put it first (`page=2&per_page=10`), and a client's query
    /// comes in any order. Keyed as spelled, one page was fetched and stored twice, and a `_fresh` walk through one
    /// spelling left the other stale: the routes answered mixes of versions the upstream never held (attack3 F5).
    /// Servers read named parameters by name, as CDNs' query sorting assumes; the order of one name's repeats
    /// (`tag=a&tag=b`) may mean something and is kept. An already sorted query keys as before ("v1" is unchanged):
    /// only entries of unsorted spellings are left unread, and evicted first as the least recently used.
    static func canonicalURL(_ url: PageURL) -> String {
        guard let query = url.query, query.utf8.contains(UInt8(ascii: "&")) else { return url.description }
        let parameters = query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
        let names = parameters.map { $0.prefix { $0 != UInt8(ascii: "=") } }
        let precedes = { (a: Substring.UTF8View.SubSequence, b: Substring.UTF8View.SubSequence) in a.lexicographicallyPrecedes(b) }
        if !zip(names, names.dropFirst()).contains(where: { precedes($1, $0) }) { return url.description }
        let order = names.indices.sorted { precedes(names[$0], names[$1]) || (!precedes(names[$1], names[$0]) && $0 < $1) }
        let sorted = order.map { String(decoding: parameters[$0], as: UTF8.self) }.joined(separator: "&")
        return url.origin.description + url.path + "?" + sorted
    }

    /// What the key digests: each part length-prefixed, so no two different requests give the same input.
    static func input(_ request: UpstreamRequest, url: String) -> [UInt8] {
        var input: [UInt8] = []
        func part(_ text: String) {
            input.append(contentsOf: String(text.utf8.count).utf8)
            input.append(0x3A)
            input.append(contentsOf: text.utf8)
        }
        part("pageproxy-cache-key-v1")
        part(request.method.rawValue)
        part(url)
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

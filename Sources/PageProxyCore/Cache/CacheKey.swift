import Glibc

/// Names one cached page: a SHA-256 of the method, the full upstream URL (its query in canonical order), every
/// header PageProxy sends with it, and the route's own CA file if it has one.
///
/// DESIGN.md: a response fetched with one `Authorization` is never served to a request with another. Every header
/// sent upstream (the route's own and those forwarded from the client) may change the answer, so all of them are
/// part of the key. The key is hexadecimal, so no request path can name a file outside the cache directory.
package struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    /// 64 lowercase hexadecimal digits.
    package let hex: String
    /// The numbers the digits spell, 16 a word: the key's 256 bits. The first is what the key hashes as (issue 13,
    /// seventh pass: the store's maps hash a key a few times a lookup, and 64 characters cost more than 64 bits of a
    /// SHA-256, which are as well spread); all four are what it is compared by (fifteenth pass: comparing the text, a
    /// `memcmp` of 64 bytes in every lookup of the store's maps, was ~3 % of a walk through entries in memory). Every
    /// key's `hex` is 64 lowercase digits (both initializers make sure), so equal words are equal keys.
    /// (Four words, not a `SIMD4`: its 32-byte alignment is more than a task's allocator gives an async frame.)
    private let words: Words

    /// The key of `request`; a key computed before for the same inputs is taken from `memo` (issue 13: a SHA-256
    /// per page was 7 % of a walk through the cache).
    package init(_ request: UpstreamRequest, memo: CacheKeyMemo? = .shared) {
        self = CacheKeyTemplate(method: request.method, headers: request.headers, caFile: request.caFile).key(for: request.url, memo: memo)
    }

    /// The key that digests `canonical()`, taken from `memo` by the input as `spelled` when it was computed before:
    /// the memo is asked by the URL as spelled, so a hit costs no sorting, and the key digests the canonical spelling.
    init(spelled: [UInt8], canonical: () -> [UInt8], memo: CacheKeyMemo?) {
        hex = memo.map { memo in memo.hex(for: spelled) { Self.digest(canonical()) } } ?? Self.digest(canonical())
        words = Self.words(hex)
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
        sortedURL(url) ?? url.description
    }

    /// `canonicalURL(url)` when it differs from the URL as spelled; nil when the spelling is canonical already.
    static func sortedURL(_ url: PageURL) -> String? {
        guard let query = url.query, query.utf8.contains(UInt8(ascii: "&")), namesAreInOrder(query) != true else { return nil }
        let parameters = query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
        let names = parameters.map { $0.prefix { $0 != UInt8(ascii: "=") } }
        let precedes = { (a: Substring.UTF8View.SubSequence, b: Substring.UTF8View.SubSequence) in a.lexicographicallyPrecedes(b) }
        if !zip(names, names.dropFirst()).contains(where: { precedes($1, $0) }) { return nil }
        let order = names.indices.sorted { precedes(names[$0], names[$1]) || (!precedes(names[$1], names[$0]) && $0 < $1) }
        let sorted = order.map { String(decoding: parameters[$0], as: UTF8.self) }.joined(separator: "&")
        return url.origin.description + url.path + "?" + sorted
    }

    /// Whether the query's parameter names are in order already (as `sortedURL` orders them), looked at in place; nil
    /// when its bytes are not contiguous. Issue 13, twelfth pass: after a restart every page's key is worked out afresh,
    /// and the check by a split into arrays was ~15 % of it, for queries that are nearly always in order.
    static func namesAreInOrder(_ query: String) -> Bool? {
        query.utf8.withContiguousStorageIfAvailable { bytes in
            let (ampersand, equals) = (UInt8(ascii: "&"), UInt8(ascii: "="))
            var previous: Range<Int>?
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != ampersand { end += 1 }
                var nameEnd = start
                while nameEnd < end, bytes[nameEnd] != equals { nameEnd += 1 }
                if let previous, precedes(bytes[start..<nameEnd], bytes[previous]) { return false }
                previous = start..<nameEnd
                start = end + 1
            }
            return true
        }
    }

    /// Byte-wise order, a prefix first (`lexicographicallyPrecedes` of the UTF-8).
    private static func precedes(_ left: Slice<UnsafeBufferPointer<UInt8>>, _ right: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        let common = min(left.count, right.count)
        if common > 0, let leftBase = left.base.baseAddress, let rightBase = right.base.baseAddress {
            let order = memcmp(leftBase + left.startIndex, rightBase + right.startIndex, common)
            if order != 0 { return order < 0 }
        }
        return left.count < right.count
    }

    /// Appends `text` to a key's input as one part: its length in decimal, `:`, its bytes. Each part is
    /// length-prefixed, so no two different requests give the same input.
    static func appendPart(_ text: String, to input: inout [UInt8]) {
        input.append(contentsOf: String(text.utf8.count).utf8)
        input.append(0x3A)
        input.append(contentsOf: text.utf8)
    }

    private static func digest(_ input: [UInt8]) -> String {
        input.withUnsafeBytes { SHA256.hexDigest(of: $0) }
    }

    /// A key read back from a file name; nil unless it is 64 lowercase hexadecimal digits.
    package init?(hex: String) {
        guard hex.utf8.count == 64, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        self.hex = hex
        words = Self.words(hex)
    }

    /// A key's 256 bits, as its digits spell them.
    private struct Words: Equatable {
        var first: UInt64 = 0
        var second: UInt64 = 0
        var third: UInt64 = 0
        var fourth: UInt64 = 0
    }

    /// The values of the four runs of 16 hexadecimal digits of `hex` (64 lowercase digits, as every key's are), read
    /// off its bytes in place (issue 13, twenty-second pass: through the generic `utf8` view, enumerated, this was
    /// ~1 µs a key, a quarter of working out a key after a restart).
    private static func words(_ hex: String) -> Words {
        var hex = hex
        return hex.withUTF8 { bytes in
            func word(_ start: Int) -> UInt64 {
                var value: UInt64 = 0
                for index in start..<min(start + 16, bytes.count) {
                    let digit = bytes[index]
                    value = value << 4 | UInt64(digit <= 0x39 ? digit &- 0x30 : digit &- 0x57)
                }
                return value
            }
            return Words(first: word(0), second: word(16), third: word(32), fourth: word(48))
        }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.first)
    }

    package static func == (left: CacheKey, right: CacheKey) -> Bool {
        left.words == right.words
    }

    /// The fan-out directory (the first two digits), so no one directory holds every entry.
    package var directoryName: String { String(hex.prefix(2)) }

    /// The entry's file name inside its fan-out directory.
    package var fileName: String { hex + CacheKey.entrySuffix }

    package static let entrySuffix = ".entry"

    /// The entry file's path under the cache directory: `<directoryName>/<fileName>`.
    package var relativePath: String { "\(directoryName)/\(fileName)" }

    package var description: String { hex }
}

/// The parts of a key's input that every page of one walk shares (the method and every header sent), built once, so
/// that a page's key costs its URL's part only (issue 13, seventh pass: building the whole input, the headers
/// lowercased and sorted, for every page was ~4 % of a warm read-back).
package struct CacheKeyTemplate: Sendable {
    /// The input's parts before the URL's (the version and the method), and after it (the headers).
    private let head: [UInt8]
    private let tail: [UInt8]

    package init(method: HTTPMethod = .get, headers: HTTPHeaders, caFile: String? = nil) {
        var head: [UInt8] = []
        CacheKey.appendPart("pageproxy-cache-key-v1", to: &head)
        CacheKey.appendPart(method.rawValue, to: &head)
        self.head = head
        var tail: [UInt8] = []
        // Field order on the wire does not change the answer; name case never does.
        let fields = headers.map { (name: String(decoding: $0.name.utf8.map(HTTPHeaders.lowercased), as: UTF8.self), value: $0.value) }
        for field in fields.enumerated().sorted(by: { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }) {
            CacheKey.appendPart(field.element.name, to: &tail)
            CacheKey.appendPart(field.element.value, to: &tail)
        }
        // The CA a route trusts for its upstream: a page fetched through one route's own CA (a private one, or a
        // proxy's) is not served to a route that would not have trusted it. A name no header can have (NUL); keys of
        // requests without one are unchanged.
        if let caFile {
            CacheKey.appendPart("\u{0}ca-file", to: &tail)
            CacheKey.appendPart(caFile, to: &tail)
        }
        self.tail = tail
    }

    /// The key of the request for `url` with this template's method, headers and CA file: `CacheKey(request)`'s.
    package func key(for url: PageURL, memo: CacheKeyMemo? = .shared) -> CacheKey {
        let spelled = input(for: url)
        // Most URLs are spelled canonically already: their input is digested as it is, not built again (issue 13).
        return CacheKey(spelled: spelled, canonical: { CacheKey.sortedURL(url).map { input(for: $0) } ?? spelled }, memo: memo)
    }

    /// The digest input of the request for the URL spelled `address`.
    private func input(for address: String) -> [UInt8] {
        var input: [UInt8] = []
        input.reserveCapacity(head.count + address.utf8.count + 8 + tail.count)
        input += head
        CacheKey.appendPart(address, to: &input)
        input += tail
        return input
    }

    /// `input(for: url.description)`, with the URL's bytes appended part by part: its text is not made (issue 13).
    private func input(for url: PageURL) -> [UInt8] {
        let count = url.descriptionByteCount
        var input: [UInt8] = []
        input.reserveCapacity(head.count + count + 21 + tail.count)
        input += head
        PageURL.appendDecimal(count, to: &input)
        input.append(0x3A)
        url.appendDescription(to: &input)
        input += tail
        return input
    }
}

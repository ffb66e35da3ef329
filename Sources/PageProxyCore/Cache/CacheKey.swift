/// Names one cached page: a SHA-256 of the method, the full upstream URL and every header PageProxy sends with it.
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
        self.init(input: Self.input(request), memo: memo)
    }

    /// The key of a digest input (`input(_:)`, `CacheKeyTemplate`), taken from `memo` when it was computed before.
    init(input: [UInt8], memo: CacheKeyMemo?) {
        hex = memo.map { memo in memo.hex(for: input) { Self.digest(input) } } ?? Self.digest(input)
        leading = Self.leadingValue(hex)
    }

    /// What the key digests: each part length-prefixed, so no two different requests give the same input.
    static func input(_ request: UpstreamRequest) -> [UInt8] {
        CacheKeyTemplate(method: request.method, headers: request.headers).input(for: request.url)
    }

    /// Appends `text` to a key's input as one part: its length in decimal, `:`, its bytes.
    static func appendPart(_ text: String, to input: inout [UInt8]) {
        input.append(contentsOf: String(text.utf8.count).utf8)
        input.append(0x3A)
        input.append(contentsOf: text.utf8)
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

/// The parts of a key's input that every page of one walk shares (the method and every header sent), built once, so
/// that a page's key costs its URL's part only (issue 13, seventh pass: building the whole input, the headers
/// lowercased and sorted, for every page was ~4 % of a warm read-back).
package struct CacheKeyTemplate: Sendable {
    /// The input's parts before the URL's (the version and the method), and after it (the headers).
    private let head: [UInt8]
    private let tail: [UInt8]

    package init(method: HTTPMethod = .get, headers: HTTPHeaders) {
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
        self.tail = tail
    }

    /// The key of the request for `url` with this template's method and headers: `CacheKey(request)`'s.
    package func key(for url: PageURL, memo: CacheKeyMemo? = .shared) -> CacheKey {
        CacheKey(input: input(for: url), memo: memo)
    }

    /// The digest input of the request for `url`.
    func input(for url: PageURL) -> [UInt8] {
        let address = url.description
        var input: [UInt8] = []
        input.reserveCapacity(head.count + address.utf8.count + 8 + tail.count)
        input += head
        CacheKey.appendPart(address, to: &input)
        input += tail
        return input
    }
}

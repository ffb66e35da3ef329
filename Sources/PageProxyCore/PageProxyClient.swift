import Foundation

/// PageProxy's pagination as a Swift library: every page of a paginated JSON API as an `AsyncSequence`.
///
/// ```swift
/// let client = PageProxyClient()
/// let source = PaginatedSource(url: PageURL(string: "https://api.github.com/repos/swiftlang/swift/issues")!,
///                              scheme: .linkHeader(.init()))
/// for try await issue in client.items(of: source, as: Issue.self) { print(issue.title) }
/// ```
/// Pages come in upstream order; pages known ahead are fetched concurrently; the first failed page ends the
/// sequence with its error. Item bytes are exactly the upstream's (compacted), never decoded and re-encoded.
public struct PageProxyClient: Sendable {
    private let transport: any UpstreamTransport
    /// What `lookahead` learned about upstreams' links, shared by this client's walks.
    private let lookahead = LookaheadMemory()

    /// A client with PageProxy's own HTTP/1.1 transport: keep-alive reuse, `http://` and `https://` upstreams
    /// (certificates verified against the system trust store), same-origin redirects followed.
    public init() {
        self.transport = RedirectingTransport(base: HTTP1Transport())
    }

    package init(transport: any UpstreamTransport) {
        self.transport = transport
    }

    /// Every page of `source`, in upstream order.
    public func pages(of source: PaginatedSource) -> PageSequence {
        PageSequence(source: source, transport: transport, lookahead: lookahead)
    }

    /// Every item of `source` as its raw JSON bytes, in upstream order.
    public func items(of source: PaginatedSource) -> ItemSequence {
        ItemSequence(pages: pages(of: source))
    }

    /// Every item of `source` decoded as `T`.
    public func items<T: Decodable & Sendable>(
        of source: PaginatedSource, as type: T.Type, decoder: JSONDecoder = JSONDecoder()
    ) -> AsyncThrowingMapSequence<ItemSequence, T> {
        items(of: source).map { bytes in try decoder.decode(T.self, from: Data(bytes)) }
    }
}

/// Where and how to walk a paginated API.
public struct PaginatedSource: Sendable {
    public var url: PageURL
    public var scheme: PaginationScheme
    /// Where the items are in each page (`data`, `results`, … or the root array).
    public var itemsPath: JSONPath
    public var concurrency: Int
    public var maxPages: Int
    public var headers: [(name: String, value: String)]
    public var pageTimeout: Duration
    public var maxPageBytes: Int

    public init(
        url: PageURL, scheme: PaginationScheme, itemsPath: JSONPath = .root, concurrency: Int = 4, maxPages: Int = 1000,
        headers: [(name: String, value: String)] = [], pageTimeout: Duration = .seconds(30), maxPageBytes: Int = 16 << 20
    ) {
        self.url = url
        self.scheme = scheme
        self.itemsPath = itemsPath
        self.concurrency = concurrency
        self.maxPages = maxPages
        self.headers = headers
        self.pageTimeout = pageTimeout
        self.maxPageBytes = maxPageBytes
    }
}

/// The pages of a paginated source; the first error ends it.
public struct PageSequence: AsyncSequence, Sendable {
    public typealias Element = Page
    public typealias Failure = PaginationError

    let source: PaginatedSource
    let transport: any UpstreamTransport
    let lookahead: LookaheadMemory

    public func makeAsyncIterator() -> Iterator {
        var options = PageWalker.Options()
        options.itemsPath = source.itemsPath
        options.concurrency = source.concurrency
        options.maxPages = source.maxPages
        options.lookaheadMemory = lookahead
        var fields = HTTPHeaders()
        for header in source.headers { fields.add(header.name, header.value) }
        let headers = fields
        let transport = self.transport
        let timeout = source.pageTimeout
        let maxBytes = source.maxPageBytes
        let walker = PageWalker(base: source.url, scheme: source.scheme, options: options) { url, number throws(PaginationError) in
            do throws(UpstreamError) {
                return try await transport.send(UpstreamRequest(url: url, headers: headers), timeout: timeout, maxBodyBytes: maxBytes)
            } catch {
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
        return Iterator(walker: walker)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let walker: PageWalker

        public mutating func next() async throws(PaginationError) -> Page? {
            try await walker.next()
        }
    }
}

/// The items of a paginated source as raw JSON bytes.
public struct ItemSequence: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    public typealias Failure = PaginationError

    let pages: PageSequence

    public func makeAsyncIterator() -> Iterator {
        Iterator(pages: pages.makeAsyncIterator())
    }

    public struct Iterator: AsyncIteratorProtocol {
        var pages: PageSequence.Iterator
        var pending: [[UInt8]] = []
        var index = 0

        public mutating func next() async throws(PaginationError) -> [UInt8]? {
            while index == pending.count {
                guard let page = try await pages.next() else { return nil }
                pending = page.itemBytes
                index = 0
            }
            defer { index += 1 }
            return pending[index]
        }
    }
}

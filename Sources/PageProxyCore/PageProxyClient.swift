import Foundation

/// PageProxy's pagination as a Swift library: every page of a paginated JSON API as an `AsyncSequence`.
///
/// ```swift
/// let client = PageProxyClient()
/// for try await issue in client.items(of: RepositoryIssues(owner: "swiftlang", repository: "swift")) {
///     print(issue.title)
/// }
/// ```
/// Pages come in upstream order; pages known ahead are fetched concurrently; the first failed page ends the
/// sequence with its ``PaginationError``. Raw item bytes are exactly the upstream's (compacted), never decoded and
/// re-encoded. A client is cheap to copy and safe to share: copies share its cache, its collapsing of concurrent
/// fetches and its transport's connections.
public struct PageProxyClient: Sendable {
    private let walks: PageWalkerFactory

    /// A client made with `configuration`: PageProxy's HTTP/1.1 transport, no cache and three retries per walk by
    /// default.
    public init(configuration: Configuration = Configuration()) {
        let store = configuration.cache.map { DiskStore(directory: $0.directory, maxBytes: $0.maxBytes) }
        self.walks = PageWalkerFactory(
            // As in the server: same-origin redirects are followed (bounded), others refused.
            transport: RedirectingTransport(base: configuration.transport.base), lookahead: LookaheadMemory(), pages: CachingPageSource(store: store),
            cachePolicy: configuration.cache?.policy ?? CachePolicy(ttl: .zero), retry: configuration.retry,
            walkTimeout: configuration.walkTimeout)
    }

    /// A client over `transport` with no cache and no retries (the package's own tests).
    package init(transport: any UpstreamTransport) {
        self.init(configuration: Configuration(transport: PageTransport(base: transport), retry: RetryPolicy(budget: 0)))
    }

    /// Every page of `source`, in upstream order.
    public func pages(of source: PaginatedSource) -> PageSequence {
        PageSequence(source: source, walks: walks)
    }

    /// Every item of `source` as its raw JSON bytes, in upstream order.
    public func items(of source: PaginatedSource) -> ItemSequence {
        ItemSequence(pages: pages(of: source))
    }

    /// Every item of `source` decoded as `T`, in upstream order.
    /// - Parameters:
    ///   - source: where and how to walk.
    ///   - type: what each item decodes to.
    ///   - decoder: the decoder for the items.
    public func items<T: Decodable>(of source: PaginatedSource, as type: T.Type, decoder: JSONDecoder = JSONDecoder()) -> DecodedItemSequence<T> {
        DecodedItemSequence(pages: pages(of: source), decoder: decoder)
    }

    /// Every page of `request`, in upstream order.
    public func pages(of request: some PaginatedRequest) -> PageSequence {
        pages(of: request.source)
    }

    /// Every item of `request` decoded as its `Item` type, in upstream order.
    public func items<Request: PaginatedRequest>(of request: Request) -> DecodedItemSequence<Request.Item> {
        DecodedItemSequence(pages: pages(of: request.source), decoder: request.makeDecoder())
    }

    /// Every item of `request` as its raw JSON bytes, in upstream order, without decoding.
    public func rawItems(of request: some PaginatedRequest) -> ItemSequence {
        items(of: request.source)
    }
}

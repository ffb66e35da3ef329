/// Where and how to walk a paginated API: the untyped form of a ``PaginatedRequest``.
public struct PaginatedSource: Sendable {
    /// The first page's URL.
    public var url: PageURL
    /// How the upstream tells where the next page is.
    public var scheme: PaginationScheme
    /// Where the items are in each page (`data`, `results`, … or the root array).
    public var itemsPath: JSONPath
    /// Header fields sent with every page request, in order.
    public var headers: [(name: String, value: String)]
    /// How much the walk may fetch at once and in all.
    public var limits: WalkLimits

    /// A source.
    /// - Parameters:
    ///   - url: the first page.
    ///   - scheme: how the upstream paginates.
    ///   - itemsPath: where the items are; the root array by default.
    ///   - headers: sent with every page request; none by default.
    ///   - limits: concurrency, page limit and timeouts; the defaults of a PageProxy route by default.
    public init(
        url: PageURL, scheme: PaginationScheme, itemsPath: JSONPath = .root, headers: [(name: String, value: String)] = [],
        limits: WalkLimits = WalkLimits()
    ) {
        self.url = url
        self.scheme = scheme
        self.itemsPath = itemsPath
        self.headers = headers
        self.limits = limits
    }
}

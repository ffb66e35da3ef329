/// How much a walk may fetch at once, in all, and how long and large each page may be.
///
/// The defaults are those of a PageProxy route with no settings.
public struct WalkLimits: Sendable, Equatable {
    /// Pages fetched at once where the scheme knows them ahead (a total, a `last` link, page numbers).
    public var concurrency: Int
    /// The runaway guard: a walk that needs more pages fails with ``PaginationError/tooManyPages(limit:)``.
    public var maxPages: Int
    /// How long one page request may take: connecting, sending and receiving the whole body.
    public var pageTimeout: Duration
    /// The largest page body accepted; a larger one fails the walk.
    public var maxPageBytes: Int

    /// Limits.
    /// - Parameters:
    ///   - concurrency: pages fetched at once; 4 by default.
    ///   - maxPages: the most pages a walk may need; 1000 by default.
    ///   - pageTimeout: the time one page may take; 30 seconds by default.
    ///   - maxPageBytes: the largest page body; 16 MiB by default.
    public init(concurrency: Int = 4, maxPages: Int = 1000, pageTimeout: Duration = .seconds(30), maxPageBytes: Int = 16 << 20) {
        self.concurrency = concurrency
        self.maxPages = maxPages
        self.pageTimeout = pageTimeout
        self.maxPageBytes = maxPageBytes
    }
}

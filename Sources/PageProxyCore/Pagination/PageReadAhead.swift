/// Fetches a page's response; the cache, retries and the network live behind it.
package typealias PageFetcher = @Sendable (_ url: PageURL, _ pageNumber: Int) async throws(PaginationError) -> UpstreamResponse

/// A page's response when it is at hand without suspending (a fresh cache hit), else nil.
package typealias CachedPageReader = @Sendable (_ url: PageURL, _ pageNumber: Int) -> UpstreamResponse?

/// Told the pages a walk will (probably) want next.
package struct PageReadAhead: Sendable {
    /// Whether reading ahead would do anything now (a cache whose entries are in memory: no); while it says no, the
    /// walker names no pages and counts none as told, and asks again at its next page.
    package var isWanted: @Sendable () -> Bool
    /// Takes the number of the first page told and a closure that builds the pages' URLs (of that page and the ones
    /// after it, in order), to be called off the walk; returns at once. The number lets a cache key the pages where
    /// the walk will look for their keys (`CacheKeyPages`: issue 13, eleventh pass).
    package var read: @Sendable (_ firstNumber: Int, _ urls: @escaping @Sendable () -> [PageURL]) -> Void
    /// Told once, when the walk has ended (its walker is gone: finished, failed, or its client left): the reads still
    /// queued for it are of no use to anyone.
    package var walkEnded: @Sendable () -> Void

    package init(
        isWanted: @escaping @Sendable () -> Bool = { true },
        numbered read: @escaping @Sendable (_ firstNumber: Int, _ urls: @escaping @Sendable () -> [PageURL]) -> Void,
        walkEnded: @escaping @Sendable () -> Void = {}
    ) {
        self.isWanted = isWanted
        self.read = read
        self.walkEnded = walkEnded
    }

    /// A read-ahead told the URLs only.
    package init(
        isWanted: @escaping @Sendable () -> Bool = { true }, read: @escaping @Sendable (_ urls: @escaping @Sendable () -> [PageURL]) -> Void,
        walkEnded: @escaping @Sendable () -> Void = {}
    ) {
        self.init(isWanted: isWanted, numbered: { _, urls in read(urls) }, walkEnded: walkEnded)
    }
}

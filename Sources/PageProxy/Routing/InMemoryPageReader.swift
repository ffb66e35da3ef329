import PageProxyCore
import Synchronization

/// The pages a walk answered on the socket loop's thread may read (`PageWalker.Options.walksOnlyPagesAtHand`): those
/// whose entries the cache keeps in memory, fresh, a few of them, a few tens of KiB in all (every other socket waits
/// while it runs, issue 13). Any other is nil: the walk declines, and the pool answers the request from the start.
/// Never waits for the disk or anything else.
///
/// A class, whose `read` is the walk's reader: one allocation a request for the reader and its bound.
final class InMemoryPageReader: Sendable {
    /// The most pages read.
    static let maxPages = 8
    private let maxBytes: Int
    private let pages: CachingPageSource
    private let (headers, policy, caFile): (HTTPHeaders, CachePolicy, String?)
    private let (firstPage, firstPageKey): (PageURL?, CacheKey?)
    private let count: RoutePageFetcher.Counter
    private let used = Mutex((pages: 0, bytes: 0))

    /// - Parameters:
    ///   - maxBytes: the most bytes of page bodies read.
    ///   - count: the request's `Counter`, told of each page read.
    init(plan: RequestPlan, pages: CachingPageSource, maxBytes: Int, count: @escaping RoutePageFetcher.Counter) {
        self.maxBytes = maxBytes
        self.pages = pages
        (headers, policy, caFile) = (plan.upstreamHeaders, plan.cachePolicy, plan.route.caFile)
        (firstPage, firstPageKey) = (plan.options.firstPage, plan.firstPageKey)
        self.count = count
    }

    /// The walk's reader.
    var read: CachedPageReader { { [self] url, number in page(url, number: number) } }

    private func page(_ url: PageURL, number: Int) -> UpstreamResponse? {
        let started = ContinuousClock.now
        guard used.withLock({ $0.pages < Self.maxPages }) else { return nil }
        // The first page's key was worked out with the plan (issue 13: a key is a digest of the URL and headers).
        let key = number == 1 && url == firstPage ? firstPageKey : nil
        guard let fetched = pages.freshHitInMemory(UpstreamRequest(url: url, headers: headers, caFile: caFile), key: key, policy: policy),
            admits(bytes: fetched.response.body.count)
        else { return nil }
        count(fetched, number, url, started)
        return fetched.response
    }

    /// Counts a page of `bytes`; false (and nothing counted) when it would take the walk past its pages or bytes.
    private func admits(bytes: Int) -> Bool {
        used.withLock { used in
            guard used.pages < Self.maxPages, used.bytes + bytes <= maxBytes else { return false }
            used.pages += 1
            used.bytes += bytes
            return true
        }
    }
}

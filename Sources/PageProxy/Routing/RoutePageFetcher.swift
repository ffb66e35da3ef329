import PageProxyCore
import PageProxyServer

/// The fetcher a route's walk asks for pages: through the shared page cache and the request's own retrying
/// transport, counting each page's cache outcome in the request's tally and the metrics.
enum RoutePageFetcher {
    /// The metrics' outcome for an upstream answer: a 304 to a revalidation (`conditional`: the try carried a stored
    /// page's validators) is `not_modified`; a 304 the upstream sent unasked, or any other 1xx/3xx, is `http_other`
    /// (review24 P15: every revalidation's 304 was `http_other` once tries were counted as sent), not a client error.
    static func outcomeLabel(status code: Int, conditional: Bool = false) -> String {
        switch code {
        case 200..<300: "ok"
        case 304 where conditional: "not_modified"
        case 400..<500: "http_4xx"
        case 500...: "http_5xx"
        default: "http_other"
        }
    }

    /// The metrics' outcome for a try sent upstream (`UpstreamTry`).
    static func outcomeLabel(of sent: UpstreamTry) -> String {
        switch sent.result {
        case .success(let status): outcomeLabel(status: status, conditional: sent.isConditional)
        case .failure(.cancelled): "cancelled"
        case .failure(.timedOut): "timeout"
        case .failure: "error"
        }
    }

    /// - Parameters:
    ///   - record: the walk's account (`_explain`, `Server-Timing`), told of every failed fetch.
    ///   - count: the request's `Counter`, shared with its `makeCachedPage` (issue 13: one closure a request, not two).
    ///   - overReused: the walk's pages read over reused connections: once one is suspect, the page fails with
    ///     `UpstreamError.strayResponse` and the suspect pages leave the cache (stray19).
    static func make(
        plan: RequestPlan, transport: RetryingTransport, pages: CachingPageSource, metrics: Metrics, record: WalkRecord, count: @escaping Counter,
        overReused: PagesOverReusedConnections
    ) -> PageFetcher {
        let route = plan.route
        let (timeout, maxBytes, routeName, caFile) = (route.pageTimeout, route.maxPageBytes, route.name, route.caFile)
        let (headers, policy, scan, secrets) = (plan.upstreamHeaders, plan.cachePolicy, plan.scanPaths, plan.secrets)
        // Upstream pages and retries are counted per try sent, by the fetch that sent it, as it ends (attack15 M1):
        // not by each request that waited for it, nor by what a request then served (a stale page after a failed try),
        // and also when the request that sent it has left while others wait for it (fix21's leftovers). One closure a
        // walk.
        let onTry: UpstreamTry.Report = { sent in
            metrics.pageFetched(route: routeName, outcome: outcomeLabel(of: sent), duration: sent.duration, retry: sent.isRetry)
        }
        return { url, number throws(PaginationError) in
            let started = ContinuousClock.now
            do throws(UpstreamError) {
                let request = UpstreamRequest(url: url, headers: headers, caFile: caFile)
                let fetched = try await pages.fetch(
                    request, policy: policy, transport: transport, timeout: timeout, maxBodyBytes: maxBytes, scan: scan, onTry: onTry)
                if overReused.note(fetched.response, at: url, stored: fetched.stored?.stamp) {
                    await pages.forget(overReused.suspectVersions)
                    throw .strayResponse(origin: url.origin.description)
                }
                count(fetched, number, url, started)
                return fetched.response
            } catch {
                // A fetch cancelled because its client left is no upstream failure (its socket was closed under it).
                if error == .cancelled || Task.isCancelled { throw .cancelled }
                record.failed(number: number, url: url, error: CredentialRedaction.redactText("\(error)", secrets: secrets), started: started)
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
    }

    /// The walk's reader of pages that are fresh in the cache, read in place with no task (`PageWalker.Options`),
    /// counted as the fetcher counts a hit; nil when the request must ask the upstream (`no-cache`, `_fresh`).
    /// - Parameter firstRead: the first page as `InMemoryAnswer` looked it up before it declined: taken as is, not
    ///   looked up again.
    static func makeCachedPage(
        plan: RequestPlan, pages: CachingPageSource, count: @escaping Counter, firstRead: FirstPageRead? = nil, fileReads: FileReadTally? = nil
    ) -> CachedPageReader? {
        guard !plan.cachePolicy.forceRevalidate, pages.store != nil else { return nil }
        let policy = plan.cachePolicy
        let (firstPage, firstPageKey, keys) = (plan.options.firstPage, plan.firstPageKey, plan.pageKeys)
        return { url, number in
            let isFirst = number == 1 && url == firstPage
            if isFirst, let firstRead {
                guard let fetched = firstRead.fetched else { return nil }
                count(fetched, number, url, firstRead.started)
                return fetched.response
            }
            let started = ContinuousClock.now
            // The first page's key was worked out with the plan, the others by the plan's last walks (issue 13: a key
            // is a digest of the URL and headers).
            let key = (isFirst ? firstPageKey : nil) ?? keys.key(for: url, number: number)
            // The key names the request (its URL, headers and CA file): none is built.
            guard let fetched = pages.freshHit(key: key, policy: policy, tally: fileReads) else {
                return nil
            }
            count(fetched, number, url, started)
            return fetched.response
        }
    }

    /// The walk's read-ahead of the entries of the pages it knows it will want next; nil when the request must ask
    /// the upstream. Only once the store's lookups have read a file since the walk began (since its first page's
    /// lookup, when `InMemoryAnswer` made it: after a restart the read-ahead is told at the first page, not at the
    /// second, once the walk has read the whole first window itself; issue 13, thirteenth pass): a walk through
    /// entries kept in memory has nothing to read ahead, and pays no hop.
    /// - Parameter fileReads: the walk's own file reads (its first page's lookup's and `makeCachedPage`'s).
    static func makeReadAhead(plan: RequestPlan, pages: CachingPageSource, fileReads: FileReadTally) -> PageReadAhead? {
        guard !plan.cachePolicy.forceRevalidate, pages.store != nil else { return nil }
        // One object for the three closures, which capture only it (issue 13: closure contexts a walk, most of which
        // never read ahead).
        let readAhead = RouteReadAhead(plan: plan, pages: pages, fileReads: fileReads)
        return PageReadAhead { readAhead.isWanted } numbered: { first, urls in readAhead.read(first, urls) } walkEnded: {
            // The walk is over (its client may have left): what it asked for and is still queued is not read.
            readAhead.cancellation.cancel()
        }
    }

    /// What a request's fetcher and cached-page reader tell of each page they have: its cache outcome.
    typealias Counter = @Sendable (CachingPageSource.Fetched, _ number: Int, _ url: PageURL, _ started: ContinuousClock.Instant) -> Void

    /// Enters a page's cache outcome in the walk's account, the request's tally and the metrics.
    /// - Parameter metrics: nil for a walk that may still decline its answer (on the socket loop): its caller counts
    ///   the tally's outcomes once it has answered.
    static func counter(plan: RequestPlan, metrics: Metrics?, tally: CacheTally, record: WalkRecord) -> Counter {
        let (routeName, ttl) = (plan.route.name, plan.route.ttl)
        return { fetched, number, url, started in
            let (response, source) = (fetched.response, fetched.outcome)
            record.fetched(number: number, url: url, status: response.status.code, outcome: source, bytes: response.bodyCount, started: started)
            tally.record(source, stored: fetched.stored, response: response, routeTTL: ttl)
            metrics?.cacheOutcome(route: routeName, outcome: source.rawValue)
        }
    }
}

/// What a walk's read-ahead knows (`RoutePageFetcher.makeReadAhead`).
private final class RouteReadAhead: Sendable {
    private let pages: CachingPageSource
    private let policy: CachePolicy
    /// The walk's keys, the plan's: worked out here, they are kept where the walk looks for them (issue 13, eleventh
    /// pass: after a restart both threads worked out every key).
    private let keys: CacheKeyPages
    /// The walk's own file reads.
    private let fileReads: FileReadTally
    /// Cancelled when the walk ends: its queued reads are skipped.
    let cancellation = ReadAheadCancellation()

    init(plan: RequestPlan, pages: CachingPageSource, fileReads: FileReadTally) {
        self.pages = pages
        (policy, keys) = (plan.cachePolicy, plan.pageKeys)
        self.fileReads = fileReads
    }

    /// Wanted once a lookup of this walk has read a file: a walk through entries in memory has nothing to gain (other
    /// requests' reads say nothing of this walk's: review18 R5).
    var isWanted: Bool { fileReads.value > 0 }

    func read(_ firstNumber: Int, _ urls: @escaping @Sendable () -> [PageURL]) {
        pages.readAhead(policy: policy, cancellation: cancellation, keys: keys, firstNumber: firstNumber, urls)
    }
}

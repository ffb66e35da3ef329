import PageProxyCore
import PageProxyServer
import Synchronization

/// The answer to a request whose walk would be one page, fresh in the page cache and the last by its scheme's own
/// reading of it: written from the cache's entry with no walk (no walker, tally, walk record, transport, read-ahead),
/// byte for byte and field for field the walk's answer, counted as the walk counts it (issue 13: the 10 KB walks
/// built all of that for one page, ~27 allocations; the memo, which builds none of it, costs half as much CPU).
///
/// Tried only for what it decides alone: a route with a scheme of its own that never guesses ahead, no window, no
/// `_fields`, no cap, no `_explain` or `_fresh`, and for NDJSON a plain GET (a HEAD or `TE: trailers` is streamed).
/// Anything else, or a page that is not a fresh hit, not the last, or not held uncopied, declines with nothing sent
/// or counted, handing the walk the page's lookup (`FirstPageRead`) so the cache sees one lookup, as without it.
///
/// A merged answer the memo does not keep (the memo off, or a plan with no memo key) is worked out once for the page's
/// stored version and kept with the plan (`PreparedOnePageAnswer`): a repeat whose lookup finds the same version is
/// sent from it, with no page made and no tag or fields built again (issue 13, twenty-fifth pass).
struct InMemoryAnswer: Sendable {
    let pages: CachingPageSource
    let metrics: Metrics
    let merged: MergedAnswerRenderer
    /// How many requests it answered (tests: the answer came from here, not from a walk).
    let answered = AnsweredCount()
    /// How many of them from what an earlier answer worked out for the same version of the page (`PreparedOnePageAnswer`).
    let answeredPrepared = AnsweredCount()

    /// How a try ended.
    enum Outcome: ~Copyable {
        case answered(RequestRecord)
        /// Nothing sent and nothing counted: the walk answers, with the first page as looked up here.
        case declined(Response, FirstPageRead?)
    }

    /// Whether a walk of `plan` may be answered here, before any lookup.
    func mayTry(_ request: HTTPRequestHead, plan: RequestPlan) -> Bool {
        let controls = plan.controls
        guard pages.store != nil, plan.strategy?.lookahead == 0, plan.options.firstPage != nil, plan.scanPaths != nil,
            !controls.explain, !plan.cachePolicy.forceRevalidate, plan.cachePolicy.ttl > .zero, controls.window == nil, controls.fields == nil,
            plan.options.pageLimit == nil, plan.options.itemLimit == nil
        else { return false }
        switch controls.format {
        case .json: return request.method == .get || request.method == .head
        case .ndjson: return request.method == .get && !request.headers.contains("TE")
        }
    }

    /// Answers `plan`'s request from its first page when that page is a fresh hit and the last; else declines.
    /// - Parameter maxBytes: on the socket loop's thread, which must never wait for the disk: only a page whose entry
    ///   the cache keeps in memory (`freshHitInMemory`), of at most `maxBytes`; nil: any fresh hit, as the walk reads it.
    /// - Precondition: `mayTry(request, plan:)`.
    func answer(
        to request: HTTPRequestHead, plan: RequestPlan, began: ContinuousClock.Instant, inMemoryUpTo maxBytes: Int? = nil,
        response: consuming Response
    ) async -> Outcome {
        guard let firstPage = plan.options.firstPage else { return .declined(response, nil) }
        let route = plan.route
        // The lookup the walk's first read would make, the same way (`RoutePageFetcher.makeCachedPage`): a GET of the
        // first page, by the plan's key (no request built for it when the plan has one).
        func upstreamRequest() -> UpstreamRequest { UpstreamRequest(url: firstPage, headers: plan.upstreamHeaders, caFile: route.caFile) }
        let key = plan.firstPageKey ?? CacheKey(upstreamRequest())
        let read =
            if let maxBytes {
                FirstPageRead(countsFileReads: false) { _ in
                    pages.freshHitInMemory(upstreamRequest(), key: key, policy: plan.cachePolicy).flatMap {
                        $0.response.body.count <= maxBytes ? $0 : nil
                    }
                }
            } else {
                FirstPageRead(countsFileReads: pages.store != nil) { tally in
                    pages.freshHit(key: key, policy: plan.cachePolicy, tally: tally)
                }
            }
        let (fetched, started) = (read.fetched, read.started)
        guard let fetched, let stored = fetched.stored else { return .declined(response, read) }
        // A repeat of an answer worked out for this very version of the page: sent from what was worked out then.
        if plan.controls.format == .json, let prepared = plan.preparedOnePage, prepared.stamp == stored.stamp,
            let parts = prepared.parts(of: fetched.response, allowance: merged.spool.memoryBytes)
        {
            let record = await merged.render(
                prepared: prepared, parts: parts, stored: stored, clock: pages.clock, plan: plan, began: began, cacheTime: .now - started,
                record: RequestRecord(route: route.name), response: response)
            metrics.cacheOutcome(route: route.name, outcome: CacheOutcome.hit.rawValue)
            self.answered.add()
            answeredPrepared.add()
            return .answered(record)
        }
        // Not before: a repeat above needs neither (issue 13: the strategy's copy was a share of each repeat).
        guard let strategy = plan.strategy, let scanPaths = plan.scanPaths else { return .declined(response, read) }
        // On the loop, only a page whose stored scan is for this route's paths: another route's would be scanned
        // again here, a whole body's JSON on the thread every socket waits for (review).
        guard maxBytes == nil || fetched.response.storedScan?.signature == scanPaths.signature,
            let page = try? PageWalker.page(from: fetched.response, url: firstPage, number: 1, paths: scanPaths),
            Self.isLast(page, strategy: strategy, options: plan.options)
        else { return .declined(response, read) }
        let cacheTime = ContinuousClock.now - started
        // What `RequestedItems` adds with no window: the total the page states.
        var extraHeaders = HTTPHeaders()
        if let total = plan.fixedScheme?.totalItems(on: page) { extraHeaders.set("PageProxy-Total", String(total)) }
        let record = RequestRecord(route: route.name)
        let answered: RequestRecord
        switch plan.controls.format {
        case .json:
            let outcome = await merged.render(
                onePage: page, stored: stored, clock: pages.clock, plan: plan, extraHeaders: extraHeaders, began: began, cacheTime: cacheTime, record: record,
                response: response)
            switch consume outcome {
            case .answered(let record): answered = record
            case .declined(let response): return .declined(response, read)
            }
        case .ndjson:
            answered = await NDJSONAnswerRenderer.render(
                onePage: page, extraHeaders: extraHeaders, preconditions: request.headers, record: record, response: response)
        }
        // Counted once the answer stands, as the walk's counter counts a hit.
        metrics.cacheOutcome(route: route.name, outcome: CacheOutcome.hit.rawValue)
        self.answered.add()
        return .answered(answered)
    }

    /// Whether the walk would end at `page`, its first: the scheme names no page after it, and the walk would not
    /// refuse it (`PageWalker.accept`: a page count stated over the route's `maxPages`, or a scheme that fails).
    private static func isLast(_ page: Page, strategy: any PaginationStrategy, options: PageWalker.Options) -> Bool {
        if let expected = strategy.expectedPageCount(after: page), min(expected, options.pageLimit ?? Int.max) > options.maxPages { return false }
        // A full page at its stated end is followed by one more (`PaginationStrategy.pageAfterStatedEnd`).
        switch try? strategy.next(after: page) {
        case NextPages.none?: return strategy.pageAfterStatedEnd(page, firstPageItemCount: page.itemCount) == nil
        case .all(let numbered)?: return numbered.count == 0 && strategy.pageAfterStatedEnd(page, firstPageItemCount: page.itemCount) == nil
        case .one?, nil: return false
        }
    }

    /// A counter shared by the copies of the answerer.
    final class AnsweredCount: Sendable {
        private let count = Atomic(0)
        func add() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }
}

/// A request's first page as `InMemoryAnswer` looked it up before it declined: the walk takes it as its first read
/// (a fresh hit, counted then) or, when it was none, goes straight to its fetch, with no second lookup.
struct FirstPageRead: Sendable {
    let fetched: CachingPageSource.Fetched?
    /// When the lookup began (the walk's account of the page's time).
    let started: ContinuousClock.Instant
    /// The walk's own file reads, this lookup's first (nil: not counted, a lookup in memory only): the walk's lookups
    /// add theirs, so that a first page read from its file wants the read-ahead at once (issue 13, thirteenth pass),
    /// and only the walk's own reads do (review18 R5).
    let fileReads: FileReadTally?

    /// The first page as `lookUp` finds it, timed, given the tally its file reads count in (when `countsFileReads`).
    init(countsFileReads: Bool, lookUp: (FileReadTally?) -> CachingPageSource.Fetched?) {
        fileReads = countsFileReads ? FileReadTally() : nil
        started = .now
        fetched = lookUp(fileReads)
    }
}

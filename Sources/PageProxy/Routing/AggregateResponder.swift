import Foundation
import PageProxyCore
import PageProxyServer

/// Answers a request for a route: plans it (`RequestPlan`), answers from the memo when it can, else walks the
/// upstream's pages (`RouteWalk`) and writes them as one JSON array (`MergedAnswerRenderer`) or as NDJSON
/// (`NDJSONAnswerRenderer`).
struct AggregateResponder: Sendable {
    let transport: any UpstreamTransport
    /// The page cache shared by every request; the retries stay per request, behind it.
    let pages: CachingPageSource
    let metrics: Metrics
    let merged: MergedAnswerRenderer
    /// Every upstream origin's request budget, shared by all requests.
    let budgets: OriginBudgets
    /// Where `lookahead` walks learn where upstreams' links point, shared by every request.
    var lookahead = LookaheadMemory()
    /// Told each time a walk hands out a page (`PageProxy fetch` draws its progress line from it).
    var walkObserver: (@Sendable (WalkRecord.Progress) -> Void)? = nil
    /// Where walks of routes with a `morePath` tell of a page with no flag there, once per route.
    var morePathWarnings = MorePathWarnings.silent
    /// Answers walks of one page fresh in the cache with no walk (issue 13).
    let inMemory: InMemoryAnswer
    /// Whether `inMemory` is tried (tests turn it off to compare its answers with the walk's).
    var triesInMemoryAnswer = true

    init(
        transport: any UpstreamTransport, pages: CachingPageSource, metrics: Metrics, spool: MergedSpool, memo: MergedAnswerMemo,
        budgets: OriginBudgets, answerEntryWorth: AnswerEntryWorth = .standard
    ) {
        self.transport = transport
        self.pages = pages
        self.metrics = metrics
        var merged = MergedAnswerRenderer(spool: spool, memo: memo, metrics: metrics)
        if memo.maxBytes > 0, let store = pages.store {
            merged.persisted = PersistedMergedAnswers(entries: AnswerEntries(store: store), memo: memo, worth: answerEntryWorth)
        }
        self.merged = merged
        self.budgets = budgets
        inMemory = InMemoryAnswer(pages: pages, metrics: metrics, merged: merged)
    }

    /// Plans the request (a bad control or header is a 400), keeps the plan in `plans`, and answers it.
    func respond(
        to request: HTTPRequestHead, route: RouteConfig, subpath: String, plans: RequestPlanCache? = nil, response: consuming Response
    ) async -> RequestRecord {
        let began = ContinuousClock.now
        let plan: RequestPlan
        do {
            plan = try RequestPlan(request: request, route: route, subpath: subpath, lookahead: lookahead, morePathWarnings: morePathWarnings)
        } catch let error as any HTTPResponseError {
            return await response.send(error, recording: RequestRecord(route: route.name))
        } catch {
            return await response.send(
                HTTPError(.internalServerError, code: "internal_error", message: "\(error)"), recording: RequestRecord(route: route.name))
        }
        plans?.keep(plan, for: request)
        return await respond(to: request, plan: plan, began: began, response: response)
    }

    /// Answers a planned request: from the memo when it can, else from its one page in memory (`InMemoryAnswer`), else by
    /// walking the pages.
    /// - Parameter memoAsked: the caller has asked the memo already (it had no answer).
    func respond(
        to request: HTTPRequestHead, plan: RequestPlan, began: ContinuousClock.Instant = .now, memoAsked: Bool = false,
        response: consuming Response
    ) async -> RequestRecord {
        // A window whose first page showed the upstream serves another size than the plan counted by is walked as it
        // was walked again then (review18 N2: each request paid the failed first page, and missed the memo).
        if let fallback = plan.rememberedWindowFallback {
            return await respond(to: request, plan: fallback, began: began, response: response)
        }
        if !memoAsked, let answer = memoized(plan) {
            return await merged.render(memoized: answer, plan: plan, began: began, record: RequestRecord(route: plan.route.name), response: response)
        }
        // Both read the memo's answers kept in the cache directory: with none (the memo off), not called (issue 13: two
        // async calls a request, each a hop and a frame).
        if merged.persisted != nil {
            if let answer = await memoizedOnDisk(plan) {
                return await merged.render(memoized: answer, plan: plan, began: began, record: RequestRecord(route: plan.route.name), response: response)
            }
            if let (answer, file, separators) = await memoizedLines(plan) {
                metrics.cacheOutcome(route: plan.route.name, outcome: CacheOutcome.hit.rawValue, count: answer.pages)
                return await NDJSONAnswerRenderer.render(
                    memoized: answer, file: file, separators: separators, plan: plan, record: RequestRecord(route: plan.route.name), response: response)
            }
        }
        guard triesInMemoryAnswer, walkObserver == nil, inMemory.mayTry(request, plan: plan) else {
            return await walk(to: request, plan: plan, began: began, response: response)
        }
        let outcome = await inMemory.answer(to: request, plan: plan, began: began, response: response)
        switch consume outcome {
        case .answered(let record): return record
        case .declined(let response, let firstRead):
            return await walk(to: request, plan: plan, began: began, tally: CacheTally(clock: pages.clock), firstRead: firstRead, response: response)
                .record(route: plan.route.name)
        }
    }

    /// Answers a planned request on the socket loop's thread when its walk would be one page whose entry the cache keeps
    /// in memory, within `maxBytes` (`InMemoryAnswer`); nil, with `response` left as it was and nothing counted, for
    /// any other (the pool answers it). After a decline, the next `RequestPlan.skipsAfterDecline` requests of the plan
    /// go to the pool without a look.
    func answerOnePage(
        to request: HTTPRequestHead, plan: RequestPlan, began: ContinuousClock.Instant, maxBytes: Int, response: inout Response?
    ) async -> RequestRecord? {
        guard triesInMemoryAnswer, walkObserver == nil, inMemory.mayTry(request, plan: plan), plan.triesWalkInMemory(), let taken = response.take()
        else { return nil }
        let outcome = await inMemory.answer(to: request, plan: plan, began: began, inMemoryUpTo: maxBytes, response: taken)
        switch consume outcome {
        case .answered(let record): return record
        case .declined(let declined, _):
            plan.walkInMemoryDeclined()
            response = Optional(declined)
            return nil
        }
    }

    /// The memo's answer to a planned request, when it has one the request may have.
    func memoized(_ plan: RequestPlan) -> MergedAnswerMemo.Answer? {
        // An account of the walk needs a walk. A memo with no room keeps nothing: not asked (issue 13: a clock read, a
        // lock and the key's hash, for each walk with the memo off).
        guard merged.memo.maxBytes > 0, let memoKey = plan.memoKey, !plan.controls.fresh, !plan.controls.explain else { return nil }
        return merged.memo.answer(for: memoKey)
    }

    /// The memo's answer to a planned request kept in the cache directory (after a restart), when the request may have
    /// it (as `memoized`); it is in the memo from now on. Not for `PageProxy fetch`, which draws its progress from a
    /// walk (`walkObserver`).
    func memoizedOnDisk(_ plan: RequestPlan) async -> MergedAnswerMemo.Answer? {
        guard let persisted = merged.persisted, walkObserver == nil, plan.memoKey != nil, !plan.controls.fresh, !plan.controls.explain
        else { return nil }
        return await persisted.answer(for: plan)
    }

    /// For NDJSON, the merged answer of the same items read from its entry in the cache directory (after a restart, or
    /// kept in the memo since), whose file and item separators make its lines (`MergedAnswerLines`), when the request
    /// may have it (as `memoizedOnDisk`); nil: the walk answers. Not for a client that takes trailers (the walk's
    /// stream sends them).
    func memoizedLines(_ plan: RequestPlan) async -> (MergedAnswerMemo.Answer, HeldEntryFile, [Int])? {
        guard let linesKey = plan.linesKey, let persisted = merged.persisted, walkObserver == nil, !plan.controls.fresh, !plan.controls.explain,
            !NDJSONAnswerRenderer.sendsTrailers(plan.request)
        else { return nil }
        let fromFile = { (answer: MergedAnswerMemo.Answer) in answer.file.flatMap { file in answer.itemSeparators.map { (answer, file, $0) } } }
        // One made by a walk (its body in memory) knows no separators: the entry, written since, does, and replaces it.
        if let kept = merged.memo.answer(for: linesKey).flatMap(fromFile) { return kept }
        return await persisted.answer(for: plan).flatMap(fromFile)
    }

    /// Answers a planned request by walking its pages (through the page cache).
    func walk(
        to request: HTTPRequestHead, plan: RequestPlan, began: ContinuousClock.Instant = .now, response: consuming Response
    ) async -> RequestRecord {
        await walk(to: request, plan: plan, began: began, tally: CacheTally(clock: pages.clock), response: response)
            .record(route: plan.route.name)
    }

    /// Answers a planned request, on the socket loop's thread, by a walk of pages that are all fresh in the cache's
    /// memory, within `maxBytes` and `InMemoryPageReader.maxPages`: the same answer as `walk`'s, with no hop to the pool
    /// (issue 13). Nil, with `response` left as it was and nothing counted, for a request such a walk may not answer
    /// (`_explain`, `_fresh`, an auto route, a guessing scheme, trailers, HEAD) or whose walk came to a page it would
    /// have to fetch, read from the disk or revalidate: the pool answers it from the start.
    func walkFromMemory(
        to request: HTTPRequestHead, plan: RequestPlan, began: ContinuousClock.Instant, maxBytes: Int, response: inout Response?
    ) async -> RequestRecord? {
        let controls = plan.controls
        guard request.method == .get, pages.store != nil, walkObserver == nil, !controls.explain, !plan.cachePolicy.forceRevalidate,
            plan.cachePolicy.ttl > .zero, plan.strategy?.lookahead == 0, controls.format == .json || !request.headers.contains("TE"),
            plan.triesWalkInMemory(), let taken = response.take()
        else { return nil }
        let tally = CacheTally(clock: pages.clock)
        // Within the spool's memory too: a merged answer that is not held is copied, and must not reach a spool file.
        let answer = await walk(
            to: request, plan: plan, began: began, tally: tally, inMemoryUpTo: min(maxBytes, merged.spool.memoryBytes), response: taken)
        switch consume answer {
        case .answered(let record):
            // Counted only now that the answer stands (every page read was a hit in memory).
            metrics.cacheOutcome(route: plan.route.name, outcome: CacheOutcome.hit.rawValue, count: tally.count(.hit))
            return record
        case .declined(let declined):
            plan.walkInMemoryDeclined()
            response = Optional(declined)
            return nil
        }
    }

    /// The fetcher of a walk of pages in memory, which never fetches: it declines first (`walksOnlyPagesAtHand`).
    private static let neverFetches: PageFetcher = { _, _ throws(PaginationError) in throw .cancelled }

    /// Answers a planned request by walking its pages: through the page cache and the upstream, or, with `maxBytes`,
    /// only through pages in memory (`InMemoryPageReader`), declining where the walk would need any other.
    /// - Parameter firstRead: the first page as `InMemoryAnswer` looked it up (it declined): not looked up again.
    private func walk(
        to request: HTTPRequestHead, plan: RequestPlan, began: ContinuousClock.Instant, tally: CacheTally, inMemoryUpTo maxBytes: Int? = nil,
        firstRead: FirstPageRead? = nil, response: consuming Response
    ) async -> WalkAnswer {
        let route = plan.route
        var record = RequestRecord(route: route.name)
        let controls = plan.controls
        // Every fetch is kept only to be explained; otherwise the timing alone, in bounded memory.
        let walkRecord = WalkRecord(began: began, keepsFetches: controls.explain, onProgress: walkObserver)
        // A walk that may decline counts nothing in the metrics until it has answered.
        let count = RoutePageFetcher.counter(plan: plan, metrics: maxBytes == nil ? metrics : nil, tally: tally, record: walkRecord)
        var options = plan.options
        let fetch: PageFetcher
        let transport: RetryingTransport?
        let overReused = PagesOverReusedConnections()
        if let maxBytes {
            (fetch, transport) = (Self.neverFetches, nil)
            options.cachedPage = InMemoryPageReader(plan: plan, pages: pages, maxBytes: maxBytes, count: count).read
            options.walksOnlyPagesAtHand = true
        } else {
            // One retry budget and one deadline for all the pages of this request.
            var retryPolicy = RetryPolicy(budget: route.retries)
            retryPolicy.maxServerDelay = route.maxRetryAfter
            // An explained walk counts each page's attempts (its retries).
            var sender: any UpstreamTransport = controls.explain ? AttemptRecordingTransport(base: self.transport, record: walkRecord) : self.transport
            if let members = route.queryMembers { sender = QueryMembersFoldingTransport(base: sender, members: members) }
            let retrying = RetryingTransport(base: sender, policy: retryPolicy, deadline: .now + route.totalTimeout, budgets: budgets)
            transport = retrying
            fetch = WindowPastTheEnd.wrap(
                RoutePageFetcher.make(
                    plan: plan, transport: retrying, pages: pages, metrics: metrics, record: walkRecord, count: count, overReused: overReused),
                endStatuses: plan.window?.endStatuses(of: plan.fixedScheme) ?? [], itemsPath: route.itemsPath)
            // The walk's own file reads, from its first page's lookup on: whether it reads ahead.
            let fileReads = firstRead?.fileReads ?? FileReadTally()
            options.cachedPage = RoutePageFetcher.makeCachedPage(plan: plan, pages: pages, count: count, firstRead: firstRead, fileReads: fileReads)
            // Merged answers too, now that they hold their pages instead of copying them into a buffer the walk faults
            // in (issue 13, fifth pass; in the fourth, that copy competed with the thread that reads ahead).
            options.readAhead = RoutePageFetcher.makeReadAhead(plan: plan, pages: pages, fileReads: fileReads)
            // DESIGN.md: a client that disconnects cancels its upstream work (from the walk's first wait for it).
            options.beforeWaiting = response.armDepartureWatch
        }
        let walk: RouteWalk
        do {
            walk = try await RouteWalk.start(
                route: route, base: plan.base, strategy: plan.strategy, options: options, fetch: fetch, record: &record)
        } catch {
            if controls.explain, !PaginationErrorResponse.isCancellation(error) {
                let items = RequestedItems(controls: controls, skip: 0, scheme: nil, knownTotal: nil, request: request, record: walkRecord)
                record = await ExplainAnswer(route: route, items: items, secrets: plan.secrets)
                    .send(walk: nil, failure: error, truncated: false, recording: record, response: response)
            } else {
                record = await response.send(walkFailure: error, plan: plan, recording: record)
            }
            return .answered(recordWalk(route: route, tally: tally, transport: transport, record: record))
        }
        let items = RequestedItems(
            controls: controls, skip: plan.window?.skip ?? 0, scheme: walk.scheme(of: route), knownTotal: walk.detected?.total, request: request,
            record: walkRecord, itemCap: plan.itemCap, windowPages: plan.window?.windowOwnPages)
        let answer: WalkAnswer
        switch controls.format {
        case _ where controls.explain:
            answer = await ExplainAnswer(route: route, items: items, secrets: plan.secrets).walkAndSend(walk, recording: record, response: response)
        case .json:
            answer = await merged.render(walk: walk, plan: plan, items: items, tally: tally, record: record, response: response)
        case .ndjson:
            // Not a walk of pages in memory on the socket loop (`maxBytes`): small answers, never worth an entry, and
            // a warm repeat paid the copy of its lines for nothing (small_ab, nineteenth pass).
            let keeper = maxBytes == nil ? NDJSONAnswerKeeper(plan: plan, walk: walk, persisted: merged.persisted) : nil
            answer = await NDJSONAnswerRenderer.render(
                walk: walk, plan: plan, items: items, tally: tally, record: record, keeper: keeper, response: response)
        }
        switch consume answer {
        case .answered(let record): return .answered(recordWalk(route: route, tally: tally, transport: transport, record: record))
        case .declined(let response):
            // A page read over a reused connection of an origin caught sending a stray response during the walk (stray19):
            // walked again, on new connections (the origin's are not reused any more), the suspect pages gone from the cache.
            if maxBytes == nil, overReused.foundSuspect, let again = plan.walkingAgainOnNewConnections() {
                return await self.walk(to: request, plan: again, began: began, tally: CacheTally(clock: pages.clock), response: response)
            }
            // A window whose first page was shorter than the size it counted pages by (review17 B9): the pool's walk
            // starts again from the first page, its own tally counting the pages of the answer it gives.
            if maxBytes == nil, walk.walker.missedWindowPageSize, let again = plan.walkingWindowAgain(
                served: walk.walker.windowServedPageSize, fromStart: walk.walker.windowMetFilter, stepBack: walk.walker.windowPastStatedEnd) {
                return await self.walk(to: request, plan: again, began: began, tally: CacheTally(clock: pages.clock), response: response)
            }
            // Pages that stated two ends of the list, one from the cache (review17 B5): walked once more, every page
            // revalidated; a list that still disagrees with itself then is the client's `upstream_list_changed`.
            if maxBytes == nil, walk.walker.foundListChanged, let again = plan.revalidatingEveryPage() {
                return await self.walk(to: request, plan: again, began: began, tally: CacheTally(clock: pages.clock), response: response)
            }
            return .declined(response)
        }
    }

    /// The walk's cache outcomes and retries, in the request log and the metrics.
    private func recordWalk(route: RouteConfig, tally: CacheTally, transport: RetryingTransport?, record: RequestRecord) -> RequestRecord {
        var record = record
        // A merged answer's renderer has summed it up already (the walk was over).
        record.cache = record.cache ?? tally.summary
        // In the log only: `/metrics` counts the retries sent, as they end (`RoutePageFetcher.make`), not each request's
        // (those of a walk that declined, review18 R1 and review21 L3, and not once per request that waited for one).
        let retries = transport?.retriesUsed ?? 0
        if retries > 0 { record.retries = retries }
        return record
    }
}

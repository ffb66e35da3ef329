import Foundation
import PageProxyCore
import PageProxyServer

/// Writes a merged answer: one JSON array of every page's items, sent only once every page has arrived (so its
/// status is honest), from memory or from its spool file; or the memo's copy of one, with no walk at all.
struct MergedAnswerRenderer: Sendable {
    /// Where merged answers wait until every page has arrived.
    let spool: MergedSpool
    /// Merged answers whose pages are all fresh in the cache, answered again without a walk.
    let memo: MergedAnswerMemo
    let metrics: Metrics
    /// Where the memo's answers are kept in the cache directory too; nil with the memo or the cache off.
    var persisted: PersistedMergedAnswers? = nil

    /// How much of a spooled answer is read and written at a time.
    static let sendChunkBytes = 64 * 1024

    /// Walks every page into the answer, then sends it (or a 304, or the error that ended the walk).
    /// - Parameter requested: the window and fields asked for, which shape each page.
    func render(
        walk: RouteWalk, plan: RequestPlan, items requested: RequestedItems, tally: CacheTally, record: RequestRecord,
        response: consuming Response
    ) async -> WalkAnswer {
        let (walker, route) = (walk.walker, plan.route)
        var framing = MergedJSONBody()
        // DESIGN.md: memory stays bounded whatever the total; past `spool.memoryBytes` the bytes wait on disk. Made
        // when a page is first copied in: an answer of held pages needs none (issue 13: two allocations a request).
        var spooled: SpooledBody?
        defer { spooled?.discard() }
        var etag = AggregateETag(shape: plan.etagShape(itemsPath: walk.headers["PageProxy-Items-Path"]))
        var (pages, items) = (0, 0)
        // Pages whose items are one run of their body wait uncopied, within the answer's memory, and the answer is sent
        // as slices of them (issue 13: the copy into the answer); the first page that cannot wait so moves them into
        // `body`, and the rest of the answer is copied there.
        let held = MergedHeldPages(allowance: spool.memoryBytes, budget: spool.heldBudget, maxBytes: route.maxMergedBytes)
        let closing: [UInt8]
        do {
            try await walker.walk { walked in
                let page = requested.shape(walked, walker: walker)
                pages += 1
                items += page.itemCount
                if held.hold(page, framing: &framing, etag: &etag) { return .takeNext }
                let body = spooled ?? spool.makeBody(route: route)
                spooled = body
                if held.partCount > 0 { try held.move(into: body) }
                try Self.append(page, to: body, framing: &framing, etag: &etag)
                return .takeNext
            }
            closing = framing.closing()
            etag.update(closing)
            if !held.isHolding {
                let body = spooled ?? spool.makeBody(route: route)
                spooled = body
                try body.append(closing)
            }
        } catch is PageWalker.PageNotAtHand {
            // A walk of pages in memory came to one it would fetch: nothing was sent, the pool answers from the start.
            return .declined(response)
        } catch _ as PaginationError where walker.missedWindowPageSize {
            // The window counted pages by a size the upstream does not serve: walked again from the first page.
            return .declined(response)
        } catch let error as PaginationError where plan.walksAgainOnNewConnections(after: error) {
            // A page may have been a stray response the upstream sent unasked (stray19): walked again on new connections.
            return .declined(response)
        } catch let error as PaginationError where plan.walksAgainRevalidating(after: error, tally: tally) {
            // Pages of two versions of the list met in the cache (review17 B5): walked again, every page revalidated.
            return .declined(response)
        } catch let error as PaginationError {
            return .answered(await response.send(walkFailure: error, plan: plan, recording: record))
        } catch let error as SpoolError {
            // The walk has ended with its fetches; `body` has already dropped what it held.
            return .answered(await response.send(MergedSpoolFailure(error: error, route: route.name), recording: record))
        } catch {
            // The walk throws only PaginationError and `body.append` only SpoolError.
            return .answered(await response.send(HTTPError(.internalServerError, code: "internal_error", message: "\(error)"), recording: record))
        }
        var extraHeaders = walk.headers
        for field in requested.headers(walker: walker, walkEnded: true) { extraHeaders.set(field.name, field.value) }
        // The walk is over: the summary is final.
        let finished = FinishedAnswer(
            extraHeaders: extraHeaders, pages: pages, items: items, truncated: requested.wasTruncatedByCap(walker), etag: etag.finalize(),
            cache: tally.summary, stale: tally.servedStale, freshness: tally.freshness, freshUntil: tally.freshUntil, began: tally.began,
            serverTiming: ServerTimingField.value(requested.record))
        return .answered(
            await send(finished, stamps: tally.stamps, held: held, closing: closing, spooled: spooled, plan: plan, record: record, response: response))
    }

    /// A walk's answer, once every page has arrived: what its head says.
    struct FinishedAnswer {
        /// Fields the walk added (an auto route's `PageProxy-Scheme` …, `PageProxy-Total`, a window's `Link`).
        let extraHeaders: HTTPHeaders
        let (pages, items): (Int, Int)
        /// Whether the client's cap cut the walk short (`PageProxy-Truncated`).
        let truncated: Bool
        let etag: String
        /// The `PageProxy-Cache` summary, and whether a page was served stale (`PageProxy-Stale`).
        let (cache, stale): (String, Bool)
        /// What caches in front may do with it (`Cache-Control`, `Vary`, `Age`).
        let freshness: AnswerFreshness
        /// Until when every page is fresh in the cache; nil when a page was not stored there (the answer is not kept).
        let freshUntil: Date?
        /// The wall time when its walk began.
        let began: Date
        let serverTiming: String
    }

    /// Sends a finished answer (a 304 for a client that holds it), memoized first when every page is fresh in the
    /// cache; its body is the memo's copy, the held pages' slices (`held.isHolding`) or else `spooled`.
    /// - Parameter stamps: the stored versions of the answer's pages, for the memo.
    private func send(
        _ answer: FinishedAnswer, stamps: @autoclosure () -> [PageStamp], held: MergedHeldPages, closing: [UInt8], spooled: SpooledBody?,
        plan: RequestPlan, record: RequestRecord, response: consuming Response
    ) async -> RequestRecord {
        var record = record
        let (route, tag) = (plan.route, answer.etag)
        // The request's record takes the walk's summary.
        record.cache = answer.cache
        var headers = MergedAnswerHeaders.make(
            extra: answer.extraHeaders, pages: answer.pages, items: answer.items, truncated: answer.truncated, cache: answer.cache,
            stale: answer.stale, etag: tag)
        answer.freshness.addHeaders(to: &headers, isPrivate: plan.isPrivate, vary: plan.vary)
        headers.set("Server-Timing", answer.serverTiming)
        (record.pages, record.items) = (answer.pages, answer.items)
        // Every page stored and fresh: the answer is memoized, a spooled one too (read back once), and then sent from
        // memory; charged against the memo's bound before it is read back or joined, and until its send has ended
        // (attack5 F1). With no room there, it is sent as it is (held pages or its spool).
        var kept: MergedAnswerMemo.Answer?
        let length = held.isHolding ? held.length + closing.count : spooled?.count ?? 0
        if let freshUntil = answer.freshUntil, let memoKey = plan.memoKey, let charge = memo.reserve(bodyBytes: length),
            let bytes = held.isHolding ? held.joined(closing: closing) : (try? spooled?.bytes())
        {
            let entryKey = persisted?.entryKey(for: plan, pages: answer.pages, bytes: bytes.count)
            // Made at the later of the walk's start and end (`MergedAnswerMemo.madeAt`: a clock stepped back meanwhile).
            let memoized = MergedAnswerMemo.Answer(
                body: bytes, pages: answer.pages, items: answer.items, truncated: answer.truncated, etag: tag, freshUntil: freshUntil,
                madeAt: memo.madeAt(walkBegan: answer.began), stamps: stamps(), extraHeaders: answer.extraHeaders,
                upstreamPrivate: answer.freshness.upstreamPrivate, charge: charge, entryKey: entryKey)
            memo.keep(memoized, for: memoKey)
            if let persisted, let entryKey { persisted.keep(memoized, key: entryKey) }
            kept = memoized
        }
        // A 304 copies `headers`; the 200 consumes them: the writer sets the length in these very fields, not in a
        // copy (issue 13).
        let precondition = ClientPreconditions.evaluate(plan.request.headers, etag: tag)
        if precondition != .proceed {
            return await ClientPreconditions.answer(precondition, fields: { Self.notModified(headers, length: length) }, record: record, response: response)
        }
        record.isSpooled = spooled?.isSpooled ?? false
        if let kept {
            await response.send(.ok, headers: consume headers, body: kept.body)
            // Held (and charged) until the send has ended, on whatever path it ended.
            withExtendedLifetime(kept) {}
            return record
        }
        if held.isHolding {
            await response.send(.ok, headers: consume headers, parts: held.parts(closing: closing))
            return record
        }
        // Not held: the walk has made the body (at its first page copied in, or for the closing bracket).
        let body = spooled ?? spool.makeBody(route: route)
        var chunks = body.chunks(of: Self.sendChunkBytes)
        do {
            try await response.send(.ok, headers: consume headers, contentLength: body.count) { try chunks.next() }
        } catch let error as SpoolError {
            // The head is out: the connection closes short of Content-Length, so the client sees the loss.
            record.error = "spool_read_failed"
            record.errorMessage = error.description
        } catch {
            // The answer's length did not add up: the connection closed short of it.
        }
        return record
    }

    /// The answer of a walk of one page, `page`, that is fresh in the cache as `stored` and is the last (`InMemoryAnswer`):
    /// the same answer as `render(walk:…)`'s, with no walk. Declined, with nothing sent, when the page cannot be held
    /// (its items are not one run of its body, or it is past the answer's memory): the walk answers it.
    /// - Parameters:
    ///   - clock: the page cache's (the answer's `Cache-Control` is measured on it).
    ///   - extraHeaders: what the walk would add (`PageProxy-Total`).
    ///   - cacheTime: how long the page's lookup took (`Server-Timing`).
    func render(
        onePage page: Page, stored: CachingPageSource.StoredVersion, clock: PageProxyClock, plan: RequestPlan, extraHeaders: HTTPHeaders,
        began: ContinuousClock.Instant, cacheTime: Duration, record: RequestRecord, response: consuming Response
    ) async -> WalkAnswer {
        var framing = MergedJSONBody()
        var etag = AggregateETag(shape: plan.etagShape(itemsPath: nil))
        let held = MergedHeldPages(allowance: spool.memoryBytes, budget: spool.heldBudget, maxBytes: plan.route.maxMergedBytes)
        guard held.hold(page, framing: &framing, etag: &etag) else { return .declined(response) }
        let closing = framing.closing()
        etag.update(closing)
        var freshness = AnswerFreshness(clock: clock)
        freshness.record(freshUntil: stored.freshUntil, isPrivate: stored.isPrivate)
        let finished = FinishedAnswer(
            extraHeaders: extraHeaders, pages: 1, items: page.itemCount, truncated: false, etag: etag.finalize(), cache: Self.onePageHit,
            stale: false, freshness: freshness, freshUntil: stored.freshUntil, began: clock.wallNow(),
            serverTiming: ServerTimingField.value(upstream: .zero, cache: cacheTime, total: .now - began))
        // An answer the memo will not keep is worked out once for this version of the page: its repeats are
        // `render(prepared:…)`'s (issue 13, twenty-fifth pass). `hold` has found the items one run of the body.
        if memo.maxBytes == 0 || plan.memoKey == nil, let run = page.itemCount == 0 ? 0..<0 : page.commaSeparatedItems {
            var opening = MergedJSONBody()
            plan.keepPreparedOnePage(
                PreparedOnePageAnswer(
                    stamp: stored.stamp, run: run, prefix: opening.prefix(for: page), closing: closing, items: page.itemCount,
                    etag: finished.etag,
                    fields: MergedAnswerHeaders.make(
                        extra: extraHeaders, pages: 1, items: page.itemCount, truncated: false, cache: Self.onePageHit, stale: false,
                        etag: finished.etag)))
        }
        return .answered(
            await send(finished, stamps: [stored.stamp], held: held, closing: closing, spooled: nil, plan: plan, record: record, response: response))
    }

    /// The answer `render(onePage:…)` gives, from what it worked out for the same stored version of the page
    /// (`PreparedOnePageAnswer`): the same bytes, fields, tag and counts, with only the per-request fields made.
    /// - Parameters:
    ///   - parts: `prepared.parts(of:allowance:)` of the page as this request's lookup found it, at `stored`.
    ///   - clock: the page cache's (the answer's `Cache-Control` is measured on it).
    ///   - cacheTime: how long the page's lookup took (`Server-Timing`).
    func render(
        prepared: PreparedOnePageAnswer, parts: [ResponseBodyPart], stored: CachingPageSource.StoredVersion, clock: PageProxyClock,
        plan: RequestPlan, began: ContinuousClock.Instant, cacheTime: Duration, record: RequestRecord, response: consuming Response
    ) async -> RequestRecord {
        var record = record
        (record.pages, record.items, record.cache) = (1, prepared.items, Self.onePageHit)
        // As `send` makes them: the answer's fields, then the freshness and the timing.
        var headers = prepared.fields
        headers.reserveCapacity(headers.count + MergedAnswerHeaders.roomAfter)
        var freshness = AnswerFreshness(clock: clock)
        freshness.record(freshUntil: stored.freshUntil, isPrivate: stored.isPrivate)
        freshness.addHeaders(to: &headers, isPrivate: plan.isPrivate, vary: plan.vary)
        headers.set("Server-Timing", ServerTimingField.value(upstream: .zero, cache: cacheTime, total: .now - began))
        let precondition = ClientPreconditions.evaluate(plan.request.headers, etag: prepared.etag)
        if precondition != .proceed {
            let length = parts.reduce(0) { $0 + $1.count }
            return await ClientPreconditions.answer(precondition, fields: { Self.notModified(headers, length: length) }, record: record, response: response)
        }
        await response.send(.ok, headers: consume headers, parts: parts)
        return record
    }

    /// The `PageProxy-Cache` summary of an answer of one page, a hit.
    static let onePageHit = CacheTally.summary([.hit: 1])

    /// Appends `page`'s items to the answer and to its tag. Not a function nested in `render`: its captures there were
    /// two boxes a request (issue 13).
    private static func append(
        _ page: Page, to body: SpooledBody, framing: inout MergedJSONBody, etag: inout AggregateETag
    ) throws(SpoolError) {
        // A page whose body the cache left in its file is copied once it is read back and checked again (a file changed
        // in place since: the store is told, and the answer fails before its head).
        guard let page = page.withBodyRead() else { throw .readFailed(errno: EIO) }
        // Items are compacted, never longer than the page's body; with `[` and `,` at most two bytes more.
        try body.append(atMost: page.body.count + 2) { framing.append(page, to: &$0) } appended: { etag.add(page, framed: $0) }
    }

    /// A merged answer from the memo: every page a cache hit, as the walk would have found them.
    nonisolated(nonsending) func render(
        memoized answer: MergedAnswerMemo.Answer, plan: RequestPlan, began: ContinuousClock.Instant, record: RequestRecord,
        response: consuming Response
    ) async -> RequestRecord {
        let (record, sending) = prepare(memoized: answer, plan: plan, began: began, record: record)
        switch sending {
        case .unmet(let precondition, let perRequest):
            let fields = { Self.notModified(Self.fields(of: answer, perRequest), length: answer.length) }
            return await ClientPreconditions.answer(precondition, fields: fields, record: record, response: response)
        case .file(let file, let perRequest):
            // Found in the cache directory after a restart: sent from its file (a file cut short in place since closes
            // the connection short of its length).
            await response.send(.ok, headers: Self.fields(of: answer, perRequest), parts: [.file(file, 0..<answer.length)])
        case .prepared(let perRequest):
            // One lookup, one write of prepared bytes.
            await response.send(.ok, prepared: answer.preparedFields, body: answer.body, perRequest: perRequest)
        }
        // The answer (and its charge against the memo's bound) is held until the send has ended, evicted meanwhile or not.
        withExtendedLifetime(answer) {}
        return record
    }

    /// `render(memoized:…)` with no wait, for an answer in memory (not one sent from its file): on the socket loop's
    /// thread as its request arrives (`PageProxyResponder.respondFromMemoryNow`). The same preparation, so the same
    /// bytes; what the client cannot take at once is written by the connection's task after (`Response.sendNow`).
    func renderNow(
        memoized answer: MergedAnswerMemo.Answer, plan: RequestPlan, began: ContinuousClock.Instant, record: RequestRecord,
        response: consuming Response
    ) -> RequestRecord {
        precondition(answer.file == nil, "an answer sent from its file waits for the disk")
        let (record, sending) = prepare(memoized: answer, plan: plan, began: began, record: record)
        switch sending {
        case .unmet(let precondition, let perRequest):
            let fields = { Self.notModified(Self.fields(of: answer, perRequest), length: answer.length) }
            return ClientPreconditions.answerNow(precondition, fields: fields, record: record, response: response)
        case .file:
            // Ruled out above; nothing is sent, and the connection closes.
            response.abandon()
        case .prepared(let perRequest):
            response.sendNow(.ok, prepared: answer.preparedFields, body: answer.body, perRequest: perRequest)
        }
        // Any part the client could not take at once holds its own reference to the body.
        withExtendedLifetime(answer) {}
        return record
    }

    /// What a memo hit sends, with its per-request fields.
    private enum MemoizedSending {
        /// The client's preconditions are not met: a 304 or a 412.
        case unmet(ClientPreconditions.Outcome, HTTPHeaders)
        /// The 200 from the answer's entry file.
        case file(HeldEntryFile, HTTPHeaders)
        /// The 200 of prepared fields and the body in memory.
        case prepared(HTTPHeaders)
    }

    /// A memo hit's record, counts and per-request fields, and what it sends.
    private func prepare(
        memoized answer: MergedAnswerMemo.Answer, plan: RequestPlan, began: ContinuousClock.Instant, record: RequestRecord
    ) -> (RequestRecord, MemoizedSending) {
        metrics.cacheOutcome(route: plan.route.name, outcome: CacheOutcome.hit.rawValue, count: answer.pages)
        var record = record
        (record.pages, record.items, record.cache) = (answer.pages, answer.items, answer.cacheSummary)
        // What caches in front may do with it depends on the time and the request, so it is not among the prepared fields.
        var perRequest = HTTPHeaders()
        perRequest.reserveCapacity(4)  // Cache-Control, Vary, Age, Server-Timing: one allocation, not three
        let now = memo.clock.wallNow()
        let cacheControl = AnswerFreshness.cacheControl(
            freshUntil: answer.freshUntil(forCachesAt: now), at: now, isPrivate: plan.isPrivate || answer.upstreamPrivate)
        AnswerFreshness.addHeaders(to: &perRequest, cacheControl: cacheControl, vary: plan.vary)
        // No walk (and no walk record): the time in the cache is the memo's lookup.
        let elapsed = ContinuousClock.now - began
        perRequest.set("Server-Timing", ServerTimingField.value(upstream: .zero, cache: elapsed, total: elapsed))
        let precondition = ClientPreconditions.evaluate(plan.request.headers, etag: answer.etag)
        if precondition != .proceed { return (record, .unmet(precondition, perRequest)) }
        if let file = answer.file { return (record, .file(file, perRequest)) }
        return (record, .prepared(perRequest))
    }

    /// A memoized answer's fields with the per-request ones: for a 304, or a 200 sent from its file.
    private static func fields(of answer: MergedAnswerMemo.Answer, _ perRequest: HTTPHeaders) -> HTTPHeaders {
        var headers = answer.headers
        for field in perRequest { headers.set(field.name, field.value) }
        return headers
    }

    /// RFC 9110 §13.1.2 — the client already holds this answer (`ClientPreconditions`): the 304's fields, the 200's
    /// `headers` with the length its GET would have.
    private static func notModified(_ headers: HTTPHeaders, length: Int) -> HTTPHeaders {
        var notModified = headers
        notModified.set("Content-Length", String(length))
        return notModified
    }
}

extension MergedSpool {
    /// An empty answer body for `route`, held in memory up to `memoryBytes`, then in a spool file.
    fileprivate func makeBody(route: RouteConfig) -> SpooledBody {
        SpooledBody(limits: SpooledBody.Limits(memoryBytes: memoryBytes, maxBytes: route.maxMergedBytes), openSpool: open, budget: heldBudget)
    }
}

import PageProxyCore
import PageProxyServer

/// Writes an NDJSON answer: one item per line, streamed as pages arrive (DESIGN.md: memory bounded by the walk's
/// window, whatever the total); the first page decides the status line. A walk complete before its first byte (its
/// pages all at hand in memory) is one answer with `Content-Length` instead.
enum NDJSONAnswerRenderer {
    /// The most bytes of lines gathered into one write.
    static let batchBytes = 256 * 1024

    /// The most bytes of lines an answer holds back while its head waits to say whether a `_max_pages` cut the window
    /// (real20 F4): past them it streams, and the head leaves `rel="next"` to the trailer.
    static let cutHoldBytes = 1 << 20

    /// Sends the first page's items as soon as it arrives and each later page's as it comes (pages at hand together);
    /// a failure after the stream began ends it with the failure line and no last chunk.
    /// - Parameter requested: the window and fields asked for, which shape each page.
    /// - Parameter keeper: keeps the lines as the merged answer of the same items in the cache directory, once the walk
    ///   has been answered whole (`NDJSONAnswerKeeper`); nil: not kept.
    static func render(
        walk: RouteWalk, plan: RequestPlan, items requested: RequestedItems, tally: CacheTally, record: RequestRecord,
        keeper: NDJSONAnswerKeeper? = nil, response: consuming Response
    ) async -> WalkAnswer {
        var record = record
        let walker = walk.walker
        (record.pages, record.items) = (0, 0)
        // The first page decides the status line: a walk that fails at once gets an honest error status. Until then
        // the response waits here; then the stream it began (nil once the client has gone).
        var unanswered: Response? = consume response
        var stream: ResponseStream?
        // The cache outcome of every page is known only at the end: it follows the body as trailer fields, for a
        // client that says it takes them (RFC 9110 §10.1.4, `TE: trailers`); others get a plain last chunk.
        // (Most requests send no `TE`: their fields are not split into tokens at all.)
        let sendsTrailers = Self.sendsTrailers(plan.request)
        // A walk whose pages are all at hand, whose lines fit one write, is complete before its first byte: it is
        // answered with `Content-Length` in one write, like a merged answer, not streamed (issue 13: the chunk
        // framing and the stream's writes were most of what NDJSON cost more than merged). Nothing can fail after
        // its status line, so there is no stream to cut short (DESIGN.md). A client that asked for trailers gets
        // the stream, with its trailers. A HEAD is held as its GET would be, and gets the same head (RFC 9110 §9.3.2:
        // attack13 saw `Transfer-Encoding: chunked` where the GET said `Content-Length`); it stops where its GET's
        // stream would begin (a page to fetch, or lines past one write): the rest would be fetched for nothing. (A
        // walk read from files sends its first page at once: streamed, below.)
        let holdsAnswer = !sendsTrailers
        var start = StreamStart(walk: walk, requested: requested, sendsTrailers: sendsTrailers)
        // The client's preconditions (RFC 9110 §13.2.2): with no entity tag, only `*` matches; weighed once the walk
        // has ended, as a merged answer's are, and ignored when it fails (§13.2.1): a 304 or 412 at the first page
        // told a client "not modified" of an answer whose second page failed (attack7). Such a walk sends nothing
        // until it ends, and keeps no lines.
        let precondition = ClientPreconditions.evaluate(plan.request.headers, etag: nil)
        // A walk that sends no lines keeps none.
        var keeper = precondition == .proceed ? keeper : nil
        var (pages, items) = (0, 0)
        // The lines of pages at hand (read in place from the cache) leave together, up to `batchBytes` a write; what
        // is pending goes out before the walk waits for a page (issue 13: a write per page was a walk's bottleneck).
        var batch: [UInt8] = []
        do {
            try await walker.walk { walked in
                let current = requested.shape(walked, walker: walker)
                if precondition != .proceed {
                    (pages, items) = (pages + 1, items + current.itemCount)
                    return .takeNext
                }
                // The head waits, all lines held, while the answer may yet be declined or its head may yet say more:
                // - while the walk may yet be walked again from another page, which only an answer not begun can be
                //   (`mayBeWalkedAgain`): a window's walk that jumped, until its pages show the list unfiltered
                //   (filtwin21); at the page before a window's, whose page may show the upstream's cap (pastend21);
                // - past a repeat of the page before, until its check page (`awaitsRepeatCheck`): the walk may end there,
                //   and the head must not link on (review21 MEDIUM 2: a window past the end said `rel="next"` for ever);
                // - a window none of whose items came yet (`awaitsWindowItems`): its head would link on by no total;
                // - a window a `_max_pages` may cut, up to `cutHoldBytes` of lines: once the walk ends, the head says
                //   where the next window starts, and whether the cap cut it, as a merged answer's does (real20 F4: a
                //   client that follows `Link` and reads no trailers stopped at the cut).
                let holdsHead = unanswered != nil && (walker.mayBeWalkedAgain || walker.awaitsRepeatCheck || requested.awaitsWindowItems
                    || (requested.headLeavesOutNext() && batch.count + current.body.count + current.itemCount <= Self.cutHoldBytes))
                if !holdsAnswer, !holdsHead, let response = unanswered.take() {
                    stream = await start.begin(response)
                    // A HEAD is answered once the first page has decided the status: the rest would be fetched for nothing.
                    guard stream?.isHeadOnly == false else { return .stop }
                }
                pages += 1
                items += current.itemCount
                // A page's lines are at most its body and a newline per item.
                if !holdsHead, !batch.isEmpty, batch.count + current.body.count + current.itemCount > Self.batchBytes {
                    if let response = unanswered.take() { stream = await start.begin(response) }
                    if stream?.isHeadOnly == true { return .stop }
                    try await stream?.write(batch)
                    batch.removeAll(keepingCapacity: true)
                }
                let linesStart = batch.count
                NDJSONBody.append(current, to: &batch)
                keeper?.add(current, lines: batch[linesStart...])
                // The last page's lines wait for the last chunk (or the whole answer), and leave with it. A walk whose
                // cache reads its pages from files (it tells its read-ahead of them) sends the first page's lines at
                // once, alone: the client's first byte does not wait for a batch of file reads (issue 13, fourteenth
                // pass: after a restart the head waited for the first 256 KiB of lines, a dozen pages read).
                let sendsFirstAtOnce = pages == 1 && walker.readsAhead
                if !holdsHead && !walker.hasHandedOutAll && (sendsFirstAtOnce || !walker.isNextPageAtHand) {
                    if let response = unanswered.take() { stream = await start.begin(response) }
                    if stream?.isHeadOnly == true { return .stop }
                    try await stream?.write(batch)
                    batch.removeAll(keepingCapacity: true)
                }
                return .takeNext
            }
        } catch {
            if let response = unanswered.take() {
                // A walk of pages in memory came to one it would fetch before its first byte: the pool answers it.
                // The same for a window that counted pages by a size the upstream does not serve: walked again from
                // the first page.
                // And for pages of two versions of the list met in the cache (review17 B5): walked again, revalidated.
                // And for a page that may have been a stray response (stray19): walked again on new connections.
                if error is PageWalker.PageNotAtHand || walker.missedWindowPageSize || plan.walksAgainRevalidating(after: error, tally: tally)
                    || plan.walksAgainOnNewConnections(after: error) {
                    return .declined(response)
                }
                return .answered(await response.send(walkFailure: error as? PaginationError ?? .cancelled, plan: plan, recording: record))
            }
            (record.pages, record.items) = (pages, items)
            guard let open = stream.take() else { return .answered(record) }
            guard let failure = error as? PaginationError, !PaginationErrorResponse.isCancellation(failure) else {
                // The client went away (the walk has stopped fetching), or a walk of pages in memory began its stream
                // and came to a page it would fetch: the answer is cut short.
                open.abort(error is PaginationError ? "client_left" : "walk_stopped")
                return .answered(record)
            }
            // The pages before the failure are the client's: their lines go out before the failure line.
            try? await open.write(batch)
            return .answered(await open.fail(with: plan.failure(failure), recording: record))
        }
        (record.pages, record.items) = (pages, items)
        // Complete before its first byte (every page at hand, or no page at all): the whole answer, with its length.
        if let response = unanswered.take() {
            if precondition != .proceed {
                let fields = { Self.headers(walk: walk, requested: requested, walkEnded: true, extra: 0) }
                return .answered(await ClientPreconditions.answer(precondition, fields: fields, record: record, response: response))
            }
            guard !holdsAnswer else {
                let headers = Self.headers(walk: walk, requested: requested, walkEnded: true, extra: 1)
                await response.send(.ok, headers: headers, slices: [batch[...]])
                keeper.take()?.keep(walk: walk, requested: requested, tally: tally)
                return .answered(record)
            }
            // A streamed walk with no page at all still gets its status line, and an empty body.
            stream = await start.begin(response)
        }
        guard let open = stream.take(), !open.isHeadOnly else { return .answered(record) }
        var trailers = HTTPHeaders()
        if sendsTrailers {
            tally.addHeaders(to: &trailers)
            // A cap that cut the walk after the head left is told here (review17 B4), once: not again when the head
            // told it (review18 R6: a recipient that merges trailers into the head got "true, true").
            if !start.toldTruncated, requested.wasTruncatedByCap(walker) { trailers.set("PageProxy-Truncated", "true") }
            // A window's `next` the head left out for a `_max_pages` that might cut it (real18 F6), where the walk ended.
            if start.leftOutNext, let next = requested.trailingNext(walker: walker) { trailers.set("Link", next) }
        }
        await open.end(last: batch, trailers: trailers)
        keeper.take()?.keep(walk: walk, requested: requested, tally: tally)
        return .answered(record)
    }

    /// The answer of a walk of one page, `page`, that is fresh in the cache and is the last (`InMemoryAnswer`): the
    /// same answer, in one write with its length, as `render(walk:…)` gives a walk whose pages are all at hand.
    /// - Parameters:
    ///   - extraHeaders: what the walk would add (`PageProxy-Total`).
    ///   - preconditions: the request's fields, weighed as the walk weighs them (`ClientPreconditions`).
    static func render(
        onePage page: Page, extraHeaders: HTTPHeaders, preconditions: HTTPHeaders, record: RequestRecord, response: consuming Response
    ) async -> RequestRecord {
        var record = record
        (record.pages, record.items, record.cache) = (1, page.itemCount, MergedAnswerRenderer.onePageHit)
        let precondition = ClientPreconditions.evaluate(preconditions, etag: nil)
        let fields = { headers(walk: HTTPHeaders(), requested: extraHeaders, extra: 1) }
        if precondition != .proceed { return await ClientPreconditions.answer(precondition, fields: fields, record: record, response: response) }
        var lines: [UInt8] = []
        NDJSONBody.append(page, to: &lines)
        await response.send(.ok, headers: fields(), slices: [lines[...]])
        return record
    }

    /// Whether the client says it takes trailer fields (RFC 9110 §10.1.4, `TE: trailers`).
    static func sendsTrailers(_ request: HTTPRequestHead) -> Bool {
        request.headers.contains("TE") && request.headers.tokens("TE").contains { $0.lowercased() == "trailers" }
    }

    /// The lines of `answer`, a merged answer of the same items read from its entry (`file`, split at `separators`):
    /// what a walk through its pages, all fresh hits, would send (the walk's fields, `Content-Length` as for pages at
    /// hand), with no page read (nineteenth pass). A file found written in place while it is sent cuts the answer
    /// (short of its length) and is dropped, as for a merged answer.
    static func render(
        memoized answer: MergedAnswerMemo.Answer, file: HeldEntryFile, separators: [Int], plan: RequestPlan, record: RequestRecord,
        response: consuming Response
    ) async -> RequestRecord {
        var record = record
        (record.pages, record.items, record.cache) = (answer.pages, answer.items, answer.cacheSummary)
        let fields = {
            var headers = headers(walk: answer.extraHeaders, requested: HTTPHeaders(), extra: 1)
            if answer.truncated { headers.set("PageProxy-Truncated", "true") }
            return headers
        }
        let precondition = ClientPreconditions.evaluate(plan.request.headers, etag: nil)
        if precondition != .proceed { return await ClientPreconditions.answer(precondition, fields: fields, record: record, response: response) }
        var chunks = MergedAnswerLines.FileChunks(file: file, mergedLength: answer.length, items: answer.items, separators: separators)
        do {
            try await response.send(
                .ok, headers: fields(), contentLength: MergedAnswerLines.length(mergedLength: answer.length, items: answer.items)
            ) { try chunks.next() }
        } catch {
            // The head is out: the connection closed short of `Content-Length`, so the client sees the loss.
            record.error = "answer_file_changed"
        }
        withExtendedLifetime(answer) {}
        return record
    }

    /// The answer's fields, with room for `extra` more (the trailers' announcement, the writer's framing field): one
    /// allocation, not one each time the fields grow (issue 13).
    fileprivate static func headers(walk: RouteWalk, requested: RequestedItems, walkEnded: Bool, extra: Int) -> HTTPHeaders {
        var headers = headers(walk: walk.headers, requested: requested.headers(walker: walk.walker, walkEnded: walkEnded), extra: extra + 1)
        // The client's `_max_items`/`_max_pages` or the route's `maxItems` cut the walk, as far as is known when the
        // head leaves (review17 B4: an NDJSON answer never said so; a cap known only later is a trailer).
        if requested.wasTruncatedByCap(walk.walker, walkEnded: walkEnded) { headers.set("PageProxy-Truncated", "true") }
        return headers
    }

    /// The answer's fields: the walk's (an auto route's scheme), then the request's (`PageProxy-Total`, a window's
    /// `Link`), with room for `extra` more.
    private static func headers(walk: HTTPHeaders, requested requestedFields: HTTPHeaders, extra: Int) -> HTTPHeaders {
        var headers = walk
        headers.reserveCapacity(headers.count + requestedFields.count + 2 + extra)
        for field in requestedFields { headers.set(field.name, field.value) }
        headers.set("Content-Type", OutputFormat.ndjson.contentType)
        headers.set("Cache-Control", "no-store")
        return headers
    }
}

/// How an NDJSON answer's stream starts.
private struct StreamStart {
    let walk: RouteWalk
    let requested: RequestedItems
    let sendsTrailers: Bool
    /// Whether the head said `PageProxy-Truncated`.
    private(set) var toldTruncated = false
    /// Whether the head left a window's `rel="next"` out (`RequestedItems.headLeavesOutNext`): a trailer may carry it.
    private(set) var leftOutNext = false

    /// Starts the stream: the head waits for the first lines and leaves with them (one write for an answer whose pages
    /// are all at hand); nil once the client has gone.
    /// A walk that has handed out every page it will is over: its head says what a held answer's would (retest21 LOW C:
    /// a `TE: trailers` stream past a list's end linked on where the held answer did not), unless it leaves a window's
    /// `next` to the trailer for a `_max_pages` that may cut it (`headLeavesOutNext`; real18 F6).
    mutating func begin(_ response: consuming Response) async -> ResponseStream? {
        leftOutNext = requested.headLeavesOutNext()
        let walkEnded = walk.walker.hasHandedOutAll && !leftOutNext
        var headers = NDJSONAnswerRenderer.headers(walk: walk, requested: requested, walkEnded: walkEnded, extra: 4)
        toldTruncated = headers["PageProxy-Truncated"] != nil
        if sendsTrailers {
            headers.set("Trailer", "PageProxy-Cache, PageProxy-Stale, PageProxy-Truncated" + (leftOutNext ? ", Link" : ""))
        }
        return try? await response.beginStream(.ok, headers: consume headers, holdingHead: true)
    }
}

import Foundation
import PageProxyCore

/// Answers a request for a route: walks the upstream's pages and writes them as one JSON array or as NDJSON.
///
/// A merged answer is sent only once every page has arrived, so its status is honest; an NDJSON answer starts
/// after the first page and, if a later page fails, ends with a failure line and no last chunk.
struct AggregateResponder: Sendable {
    let transport: any UpstreamTransport
    /// The page cache shared by every request; the retries stay per request, behind it.
    let pages: CachingPageSource
    let metrics: Metrics
    /// Where merged answers wait until every page has arrived.
    let spool: MergedSpool
    /// Merged answers whose pages are all fresh in the cache, answered again without a walk.
    let memo: MergedAnswerMemo
    /// Every upstream origin's request budget, shared by all requests.
    let budgets: OriginBudgets
    /// Where `lookahead` walks learn where upstreams' links point, shared by every request.
    var lookahead = LookaheadMemory()
    /// Told each time a walk hands out a page (`PageProxy fetch` draws its progress line from it).
    var walkObserver: (@Sendable (WalkRecord.Progress) -> Void)? = nil

    /// How much of a spooled answer is read and written at a time.
    static let sendChunkBytes = 64 * 1024

    func respond(to request: HTTPRequestHead, route: RouteConfig, subpath: String, writer: ResponseWriter) async {
        let began = ContinuousClock.now
        writer.logFields["route"] = .string(route.name)
        let controls: ProxyControls
        do {
            controls = try ProxyControls.parse(request)
        } catch {
            await sendError(.badRequest, code: "invalid_control", message: error.message, details: [("control", .string(error.control))], writer: writer)
            return
        }
        // Every fetch is kept only to be explained; otherwise the timing alone, in bounded memory.
        let record = WalkRecord(began: began, keepsFetches: controls.explain, onProgress: walkObserver)
        let headers: HTTPHeaders
        do {
            headers = try UpstreamHeaders.make(route: route, request: request)
        } catch {
            await sendError(.badRequest, code: error.code, message: error.message, details: [("header", .string(error.header))], writer: writer)
            return
        }
        // A window walks only the pages it needs: a numbered scheme starts at the page that holds its first item.
        let fixedScheme: PaginationScheme? = if case .scheme(let scheme) = route.pagination { scheme } else { nil }
        let routeBase = upstreamURL(route: route, subpath: subpath, query: controls.upstreamQuery)
        let plan = controls.window?.plan(scheme: fixedScheme, base: routeBase)
        let base = plan?.base ?? routeBase
        var options = PageWalker.Options()
        options.itemsPath = route.itemsPath
        options.concurrency = route.concurrency
        options.maxPages = route.maxPages
        options.pageLimit = [controls.maxPages, plan?.pageLimit].compactMap { $0 }.min()
        options.itemLimit = [controls.maxItems, route.maxItems, plan?.itemLimit].compactMap { $0 }.min()
        options.lookaheadMemory = lookahead
        // One retry budget and one deadline for all the pages of this request.
        var retryPolicy = RetryPolicy(budget: route.retries)
        retryPolicy.maxServerDelay = route.maxRetryAfter
        // An explained walk counts each page's attempts (its retries).
        let sender: any UpstreamTransport = controls.explain ? AttemptRecordingTransport(base: self.transport, record: record) : self.transport
        let transport = RetryingTransport(base: sender, policy: retryPolicy, deadline: .now + route.totalTimeout, budgets: budgets)
        let tally = CacheTally()
        let policy = CachePolicy(ttl: route.ttl, staleIfError: route.staleIfError, forceRevalidate: controls.fresh)
        // Only merged answers are memoized; an NDJSON request needs no key.
        // The window's skip and the fields decide the bytes too: they are part of the key.
        let memoKey = controls.format == .json
            ? MergedAnswerMemo.key(
                route: route.name, base: base, pageLimit: options.pageLimit, itemLimit: options.itemLimit, upstreamHeaders: headers)
                + "\u{0}\(plan?.skip ?? 0)\u{0}\(controls.fields?.description ?? "")"
            : ""
        // An account of the walk needs a walk.
        if controls.format == .json, !controls.fresh, !controls.explain, let answer = memo.answer(for: memoKey, at: Date()) {
            await sendMemoized(answer, route: route, request: request, record: record, writer: writer)
            return
        }
        let secrets = CredentialRedaction.secrets(in: headers)
        let fetch = WindowPastTheEnd.wrap(
            makeFetcher(
                route: route, headers: headers, transport: transport, policy: policy, scan: Self.scanPaths(route), tally: tally, record: record),
            endStatuses: plan?.endStatuses(of: fixedScheme) ?? [], itemsPath: route.itemsPath)
        let failure = FailureContext(route: route.name, secrets: secrets)
        let walk: RouteWalk
        do {
            walk = try await RouteWalk.start(route: route, base: base, options: options, fetch: fetch, writer: writer)
        } catch {
            if controls.explain {
                let items = RequestedItems(controls: controls, skip: 0, scheme: nil, knownTotal: nil, request: request, record: record)
                await ExplainAnswer(route: route, items: items, secrets: secrets).send(walk: nil, failure: error, truncated: false, writer: writer)
            } else {
                await sendFailure(error, failure, writer: writer)
            }
            recordWalk(route: route, tally: tally, transport: transport, writer: writer)
            return
        }
        let items = RequestedItems(
            controls: controls, skip: plan?.skip ?? 0, scheme: walk.scheme(of: route), knownTotal: walk.detected?.total, request: request,
            record: record)
        let watcher = writer.watchForDisconnect()
        switch controls.format {
        case _ where controls.explain:
            await ExplainAnswer(route: route, items: items, secrets: secrets).walkAndSend(walk, writer: writer)
        case .json:
            // Everything besides the pages that decides the merged bytes (AggregateETag): the items path (an auto
            // route's as detected), the limits, the window's skip and the fields.
            let itemsPath = walk.headers["PageProxy-Items-Path"] ?? route.itemsPath.description
            let shape = "\(route.pagination.name)\u{0}\(itemsPath)\u{0}\(options.pageLimit ?? -1)\u{0}\(options.itemLimit ?? -1)"
                + "\u{0}\(plan?.skip ?? 0)\u{0}\(controls.fields?.description ?? "")"
            await respondMerged(
                walker: walk.walker, route: route, request: request, tally: tally, memoKey: memoKey, etagShape: shape,
                extraHeaders: walk.headers, items: items, failure: failure, writer: writer)
        case .ndjson:
            await respondStreamed(
                walker: walk.walker, route: route, request: request, tally: tally, extraHeaders: walk.headers, items: items,
                failure: failure, writer: writer)
        }
        // The watcher must have stopped reading before the connection reads the next request.
        watcher.cancel()
        await watcher.value
        recordWalk(route: route, tally: tally, transport: transport, writer: writer)
    }

    /// The walk's cache outcomes and retries, in the request log and the metrics.
    private func recordWalk(route: RouteConfig, tally: CacheTally, transport: RetryingTransport, writer: ResponseWriter) {
        writer.logFields["cache"] = .string(tally.summary)
        let retries = transport.retriesUsed
        metrics.retried(route: route.name, count: retries)
        if retries > 0 { writer.logFields["retries"] = .int(retries) }
    }

    private func respondMerged(
        walker: PageWalker, route: RouteConfig, request: HTTPRequestHead, tally: CacheTally, memoKey: String, etagShape: String,
        extraHeaders: HTTPHeaders, items requested: RequestedItems, failure: FailureContext, writer: ResponseWriter
    ) async {
        var framing = MergedJSONBody()
        // DESIGN.md: memory stays bounded whatever the total; past `spool.memoryBytes` the bytes wait on disk.
        let body = SpooledBody(
            limits: SpooledBody.Limits(memoryBytes: spool.memoryBytes, maxBytes: route.maxMergedBytes), openSpool: spool.open)
        defer { body.discard() }
        var etag = AggregateETag(shape: etagShape)
        var pages = 0
        var items = 0
        do {
            while let walked = try await walker.next() {
                let page = requested.shape(walked, walker: walker)
                // Items are compacted, never longer than the page's body; with `[` and `,` at most two bytes more.
                try body.append(atMost: page.body.count + 2) { framing.append(page, to: &$0) } appended: { etag.add(page, framed: $0) }
                pages += 1
                items += page.itemCount
            }
            let closing = framing.closing()
            etag.update(closing)
            try body.append(closing)
        } catch let error as PaginationError {
            await sendFailure(error, failure, writer: writer)
            return
        } catch let error as SpoolError {
            // Stop fetching pages nobody will see; `body` has already dropped what it held.
            walker.finish()
            await sendSpoolFailure(error, route: route, writer: writer)
            return
        } catch {
            // `walker.next()` throws only PaginationError and `body.append` only SpoolError.
            walker.finish()
            await sendError(.internalServerError, code: "internal_error", message: "\(error)", details: [], writer: writer)
            return
        }
        let tag = etag.finalize()
        var extraHeaders = extraHeaders
        for field in requested.headers(walker: walker, walkEnded: true) { extraHeaders.set(field.name, field.value) }
        let truncated = requested.wasTruncatedByCap(walker)
        var headers = MergedAnswerHeaders.make(
            extra: extraHeaders, pages: pages, items: items, truncated: truncated, cache: tally.summary, stale: tally.servedStale, etag: tag)
        tally.freshness.addHeaders(to: &headers, route: route, request: request)
        headers.set("Server-Timing", ServerTimingField.value(requested.record))
        writer.logFields["pages"] = .int(pages)
        writer.logFields["items"] = .int(items)
        // Every page stored and fresh: the answer is memoized, a spooled one too (read back once, within the memo's
        // bound), and then sent from memory.
        var kept: [UInt8]?
        if let freshUntil = tally.freshUntil, memo.accepts(byteCount: body.count), let bytes = try? body.bytes() {
            memo.keep(
                MergedAnswerMemo.Answer(
                    body: bytes, pages: pages, items: items, truncated: truncated, etag: tag, freshUntil: freshUntil,
                    stamps: tally.stamps, extraHeaders: extraHeaders),
                for: memoKey)
            kept = bytes
        }
        // RFC 9110 §13.1.2 — the client already holds this answer: no body.
        if AggregateETag.matches(ifNoneMatch: request.headers.values("If-None-Match"), etag: tag) {
            var notModified = headers
            notModified.remove("Content-Type")
            notModified.set("Content-Length", String(body.count))
            try? await writer.send(.notModified, headers: notModified, body: [])
            return
        }
        if body.isSpooled { writer.logFields["spooled"] = .bool(true) }
        if let kept {
            try? await writer.send(.ok, headers: headers, body: kept)
            return
        }
        var chunks = body.chunks(of: Self.sendChunkBytes)
        do {
            try await writer.send(.ok, headers: headers, contentLength: body.count) { try chunks.next() }
        } catch let error as SpoolError {
            // The head is out: the connection closes short of Content-Length, so the client sees the loss.
            writer.logFields["error"] = .string("spool_read_failed")
            writer.logFields["error_message"] = .string(error.description)
        } catch {
            // The client went away.
        }
    }

    /// A merged answer from the memo: every page a cache hit, as the walk would have found them.
    private func sendMemoized(
        _ answer: MergedAnswerMemo.Answer, route: RouteConfig, request: HTTPRequestHead, record: WalkRecord, writer: ResponseWriter
    ) async {
        metrics.cacheOutcome(route: route.name, outcome: CacheOutcome.hit.rawValue, count: answer.pages)
        writer.logFields["pages"] = .int(answer.pages)
        writer.logFields["items"] = .int(answer.items)
        writer.logFields["cache"] = .string(answer.cacheSummary)
        // What caches in front may do with it depends on the time and the request, so it is not among the prepared fields.
        let freshness = AnswerFreshness()
        freshness.record(freshUntil: answer.freshUntil)
        var perRequest = HTTPHeaders()
        freshness.addHeaders(to: &perRequest, route: route, request: request)
        // No walk: the time in the cache is the memo's lookup.
        let elapsed = record.elapsed
        perRequest.set("Server-Timing", ServerTimingField.value(upstream: .zero, cache: elapsed, total: elapsed))
        if AggregateETag.matches(ifNoneMatch: request.headers.values("If-None-Match"), etag: answer.etag) {
            var headers = answer.headers
            headers.remove("Content-Type")
            headers.set("Content-Length", String(answer.body.count))
            for field in perRequest { headers.set(field.name, field.value) }
            try? await writer.send(.notModified, headers: headers, body: [])
            return
        }
        // One lookup, one write of prepared bytes.
        try? await writer.send(.ok, prepared: answer.preparedFields, body: answer.body, perRequest: perRequest)
    }

    /// DESIGN.md "Errors": a merged answer that cannot be held is a JSON error pointing at the streamed output.
    ///
    /// 507 Insufficient Storage (RFC 4918 §11.5: the server "is unable to store the representation needed to
    /// complete the request") says exactly what happened, for the cap and for a full disk alike: it is not the
    /// upstream's fault (not 502), the request itself is fine (413 is about request content), and retrying the same
    /// request will not help, which the message says along with what will: asking for NDJSON.
    private func sendSpoolFailure(_ error: SpoolError, route: RouteConfig, writer: ResponseWriter) async {
        let hint = "ask for NDJSON instead (_format=ndjson or Accept: application/x-ndjson), which streams the items "
            + "as pages arrive and holds no more than a few pages"
        var details: [(String, LogValue)] = [("route", .string(route.name))]
        let code: String
        switch error {
        case .tooLarge(let limit):
            code = "merged_answer_too_large"
            details.append(("limit_bytes", .int(limit)))
        case .createFailed, .writeFailed, .readFailed:
            code = "spool_failed"
        }
        await sendError(.insufficientStorage, code: code, message: "\(error.description); \(hint)", details: details, writer: writer)
    }

    private func respondStreamed(
        walker: PageWalker, route: RouteConfig, request: HTTPRequestHead, tally: CacheTally, extraHeaders: HTTPHeaders,
        items requested: RequestedItems, failure: FailureContext, writer: ResponseWriter
    ) async {
        var pages = 0
        var items = 0
        defer {
            writer.logFields["pages"] = .int(pages)
            writer.logFields["items"] = .int(items)
        }
        // The first page decides the status line: a walk that fails at once gets an honest error status.
        let first: Page?
        do {
            first = try await walker.next().map { requested.shape($0, walker: walker) }
        } catch {
            await sendFailure(error, failure, writer: writer)
            return
        }
        var headers = extraHeaders
        for field in requested.headers(walker: walker, walkEnded: false) { headers.set(field.name, field.value) }
        headers.set("Content-Type", OutputFormat.ndjson.contentType)
        headers.set("Cache-Control", "no-store")
        // The cache outcome of every page is known only at the end: it follows the body as trailer fields, for a
        // client that says it takes them (RFC 9110 §10.1.4, `TE: trailers`); others get a plain last chunk.
        let sendsTrailers = request.headers.tokens("TE").contains { $0.lowercased() == "trailers" }
        if sendsTrailers { headers.set("Trailer", "PageProxy-Cache, PageProxy-Stale") }
        do {
            try await writer.beginStream(.ok, headers: headers)
            // A HEAD is answered once the first page has decided the status: the rest would be fetched for nothing.
            if case .finished = writer.state {
                walker.finish()
                return
            }
            var page = first
            while let current = page {
                pages += 1
                items += current.itemCount
                try await writer.writeStreamed(NDJSONBody.bytes(for: current))
                page = try await walker.next().map { requested.shape($0, walker: walker) }
            }
            var trailers = HTTPHeaders()
            if sendsTrailers { tally.addHeaders(to: &trailers) }
            try await writer.endStream(trailers: trailers)
        } catch let error as PaginationError {
            let response = PaginationErrorResponse(error, route: failure.route, secrets: failure.secrets)
            writer.logFields["error"] = .string(response.code)
            try? await writer.writeStreamed(StreamFailureLine.make(errorJSON: response.body))
            writer.abortStream()
        } catch {
            // The client went away: stop fetching at once.
            walker.finish()
            writer.abortStream()
        }
    }

    /// What an error report of this request needs besides the error: the route, and the credentials it sent upstream.
    private struct FailureContext {
        let route: String
        let secrets: [String]
    }

    private func sendFailure(_ error: PaginationError, _ context: FailureContext, writer: ResponseWriter) async {
        let response = PaginationErrorResponse(error, route: context.route, secrets: context.secrets)
        await sendError(
            response.status, code: response.code, message: response.message, details: response.details, headers: response.headers, writer: writer)
    }

    private func sendError(
        _ status: HTTPStatus, code: String, message: String, details: [(String, LogValue)], headers extra: HTTPHeaders = HTTPHeaders(),
        writer: ResponseWriter
    ) async {
        writer.logFields["error"] = .string(code)
        var (headers, body) = ErrorResponse.make(status: status, code: code, message: message, details: details)
        for (name, value) in extra { headers.add(name, value) }
        try? await writer.send(status, headers: headers, body: body)
    }

    /// The route's base URL, with the request's extra path appended and its query (controls removed) merged in.
    private func upstreamURL(route: RouteConfig, subpath: String, query: String?) -> PageURL {
        let upstream = route.upstream
        var path = upstream.path
        if !subpath.isEmpty {
            path = (path.hasSuffix("/") ? String(path.dropLast()) : path) + subpath
        }
        let queries = [upstream.query, query].compactMap { $0 }.filter { !$0.isEmpty }
        return PageURL(
            scheme: upstream.scheme, host: upstream.host, port: upstream.port, path: path,
            query: queries.isEmpty ? nil : queries.joined(separator: "&"))
    }

    /// What a walk of `route` scans pages for, so that pages it stores keep their scan and hits reuse it; nil for an
    /// auto route, whose paths are known only once its first page is read (its pages are scanned by the walker).
    private static func scanPaths(_ route: RouteConfig) -> ScanPaths? {
        guard case .scheme(let scheme) = route.pagination else { return nil }
        return ScanPaths(itemsPath: route.itemsPath, valuePaths: scheme.makeStrategy().valuePaths)
    }

    private func makeFetcher(
        route: RouteConfig, headers: HTTPHeaders, transport: RetryingTransport, policy: CachePolicy, scan: ScanPaths?, tally: CacheTally,
        record: WalkRecord
    ) -> PageFetcher {
        let timeout = route.pageTimeout
        let maxBytes = route.maxPageBytes
        let metrics = self.metrics
        let pages = self.pages
        let routeName = route.name
        let caFile = route.caFile
        let ttl = route.ttl
        let secrets = CredentialRedaction.secrets(in: headers)
        return { url, number throws(PaginationError) in
            let started = ContinuousClock.now
            do throws(UpstreamError) {
                let fetched = try await pages.fetch(
                    UpstreamRequest(url: url, headers: headers, caFile: caFile), policy: policy, transport: transport, timeout: timeout, maxBodyBytes: maxBytes,
                    scan: scan)
                let (response, source) = (fetched.response, fetched.outcome)
                record.fetched(number: number, url: url, status: response.status.code, outcome: source, bytes: response.body.count, started: started)
                tally.record(source, stored: fetched.stored)
                tally.freshness.record(response: response, outcome: source, freshUntil: fetched.stored?.freshUntil, routeTTL: ttl)
                metrics.cacheOutcome(route: routeName, outcome: source.rawValue)
                // A hit or a stale page made no upstream request that answered.
                guard source != .hit && source != .stale else { return response }
                let code = response.status.code
                let outcome = (200..<300).contains(code) ? "ok" : code < 500 ? "http_4xx" : "http_5xx"
                metrics.pageFetched(route: routeName, outcome: outcome, duration: .now - started)
                return response
            } catch {
                let outcome = if case .timedOut = error { "timeout" } else { "error" }
                record.failed(number: number, url: url, error: CredentialRedaction.redactText("\(error)", secrets: secrets), started: started)
                metrics.pageFetched(route: routeName, outcome: outcome, duration: .now - started)
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
    }
}

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

    /// How much of a spooled answer is read and written at a time.
    static let sendChunkBytes = 64 * 1024

    func respond(to request: HTTPRequestHead, route: RouteConfig, subpath: String, writer: ResponseWriter) async {
        writer.logFields["route"] = .string(route.name)
        let controls: ProxyControls
        do {
            controls = try ProxyControls.parse(request)
        } catch {
            await sendError(.badRequest, code: "invalid_control", message: error.message, details: [("control", .string(error.control))], writer: writer)
            return
        }
        let base = upstreamURL(route: route, subpath: subpath, query: controls.upstreamQuery)
        var options = PageWalker.Options()
        options.itemsPath = route.itemsPath
        options.concurrency = route.concurrency
        options.maxPages = route.maxPages
        options.pageLimit = controls.maxPages
        options.itemLimit = [controls.maxItems, route.maxItems].compactMap { $0 }.min()
        // One retry budget and one deadline for all the pages of this request.
        var retryPolicy = RetryPolicy(budget: route.retries)
        retryPolicy.maxServerDelay = route.maxRetryAfter
        let transport = RetryingTransport(base: self.transport, policy: retryPolicy, deadline: .now + route.totalTimeout)
        let tally = CacheTally()
        let policy = CachePolicy(ttl: route.ttl, staleIfError: route.staleIfError, forceRevalidate: controls.fresh)
        let headers = Self.upstreamHeaders(route: route, request: request)
        // Only merged answers are memoized; an NDJSON request needs no key.
        let memoKey = controls.format == .json
            ? MergedAnswerMemo.key(
                route: route.name, base: base, pageLimit: options.pageLimit, itemLimit: options.itemLimit, upstreamHeaders: headers)
            : ""
        if controls.format == .json, !controls.fresh, let answer = memo.answer(for: memoKey, at: Date()) {
            await sendMemoized(answer, route: route, request: request, writer: writer)
            return
        }
        let fetch = makeFetcher(route: route, headers: headers, transport: transport, policy: policy, tally: tally)
        let walk: RouteWalk
        do {
            walk = try await RouteWalk.start(route: route, base: base, options: options, fetch: fetch, writer: writer)
        } catch {
            await sendFailure(error, route: route, writer: writer)
            recordWalk(route: route, tally: tally, transport: transport, writer: writer)
            return
        }
        let watcher = writer.watchForDisconnect()
        switch controls.format {
        case .json:
            await respondMerged(
                walker: walk.walker, route: route, request: request, tally: tally, memoKey: memoKey, extraHeaders: walk.headers,
                writer: writer)
        case .ndjson:
            await respondStreamed(walker: walk.walker, route: route, request: request, tally: tally, extraHeaders: walk.headers, writer: writer)
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
        walker: PageWalker, route: RouteConfig, request: HTTPRequestHead, tally: CacheTally, memoKey: String,
        extraHeaders: HTTPHeaders, writer: ResponseWriter
    ) async {
        var framing = MergedJSONBody()
        // DESIGN.md: memory stays bounded whatever the total; past `spool.memoryBytes` the bytes wait on disk.
        let body = SpooledBody(
            limits: SpooledBody.Limits(memoryBytes: spool.memoryBytes, maxBytes: route.maxMergedBytes), openSpool: spool.open)
        defer { body.discard() }
        var etag = AggregateETag()
        var pages = 0
        var items = 0
        do {
            while let page = try await walker.next() {
                var bytes: [UInt8] = []
                framing.append(page, to: &bytes)
                etag.update(bytes[...])
                try body.append(bytes)
                pages += 1
                items += page.itemCount
            }
            let closing = framing.closing()
            etag.update(closing[...])
            try body.append(closing)
        } catch let error as PaginationError {
            await sendFailure(error, route: route, writer: writer)
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
        var headers = extraHeaders
        headers.set("Content-Type", OutputFormat.json.contentType)
        headers.set("PageProxy-Pages", String(pages))
        headers.set("PageProxy-Items", String(items))
        if walker.wasTruncated { headers.set("PageProxy-Truncated", "true") }
        tally.addHeaders(to: &headers)
        let tag = etag.finalize()
        headers.set("ETag", tag)
        writer.logFields["pages"] = .int(pages)
        writer.logFields["items"] = .int(items)
        if let bytes = body.inMemory, let freshUntil = tally.freshUntil {
            memo.keep(
                MergedAnswerMemo.Answer(
                    body: bytes, pages: pages, items: items, truncated: walker.wasTruncated, etag: tag, freshUntil: freshUntil,
                    headers: extraHeaders),
                for: memoKey)
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
    private func sendMemoized(_ answer: MergedAnswerMemo.Answer, route: RouteConfig, request: HTTPRequestHead, writer: ResponseWriter) async {
        let tally = CacheTally()
        for _ in 0..<answer.pages { tally.record(.hit) }
        metrics.cacheOutcome(route: route.name, outcome: CacheOutcome.hit.rawValue, count: answer.pages)
        var headers = answer.headers
        headers.set("Content-Type", OutputFormat.json.contentType)
        headers.set("PageProxy-Pages", String(answer.pages))
        headers.set("PageProxy-Items", String(answer.items))
        if answer.truncated { headers.set("PageProxy-Truncated", "true") }
        tally.addHeaders(to: &headers)
        headers.set("ETag", answer.etag)
        writer.logFields["pages"] = .int(answer.pages)
        writer.logFields["items"] = .int(answer.items)
        writer.logFields["cache"] = .string(tally.summary)
        if AggregateETag.matches(ifNoneMatch: request.headers.values("If-None-Match"), etag: answer.etag) {
            headers.remove("Content-Type")
            headers.set("Content-Length", String(answer.body.count))
            try? await writer.send(.notModified, headers: headers, body: [])
            return
        }
        try? await writer.send(.ok, headers: headers, body: answer.body)
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
        writer: ResponseWriter
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
            first = try await walker.next()
        } catch {
            await sendFailure(error, route: route, writer: writer)
            return
        }
        var headers = extraHeaders
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
                page = try await walker.next()
            }
            var trailers = HTTPHeaders()
            if sendsTrailers { tally.addHeaders(to: &trailers) }
            try await writer.endStream(trailers: trailers)
        } catch let error as PaginationError {
            let failure = PaginationErrorResponse(error, route: route.name)
            writer.logFields["error"] = .string(failure.code)
            try? await writer.writeStreamed(StreamFailureLine.make(errorJSON: failure.body))
            writer.abortStream()
        } catch {
            // The client went away: stop fetching at once.
            walker.finish()
            writer.abortStream()
        }
    }

    private func sendFailure(_ error: PaginationError, route: RouteConfig, writer: ResponseWriter) async {
        let failure = PaginationErrorResponse(error, route: route.name)
        await sendError(failure.status, code: failure.code, message: failure.message, details: failure.details, writer: writer)
    }

    private func sendError(_ status: HTTPStatus, code: String, message: String, details: [(String, LogValue)], writer: ResponseWriter) async {
        writer.logFields["error"] = .string(code)
        let (headers, body) = ErrorResponse.make(status: status, code: code, message: message, details: details)
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

    /// The headers every page request of this client request carries: the route's, then the forwarded ones.
    private static func upstreamHeaders(route: RouteConfig, request: HTTPRequestHead) -> HTTPHeaders {
        var fields = HTTPHeaders()
        for (name, value) in route.headers { fields.set(name, value) }
        for name in route.forwardHeaders {
            for value in request.headers.values(name) { fields.add(name, value) }
        }
        return fields
    }

    private func makeFetcher(
        route: RouteConfig, headers: HTTPHeaders, transport: RetryingTransport, policy: CachePolicy, tally: CacheTally
    ) -> PageFetcher {
        let timeout = route.pageTimeout
        let maxBytes = route.maxPageBytes
        let metrics = self.metrics
        let pages = self.pages
        let routeName = route.name
        let caFile = route.caFile
        return { url, number throws(PaginationError) in
            let started = ContinuousClock.now
            do throws(UpstreamError) {
                let (response, source, freshUntil) = try await pages.fetch(
                    UpstreamRequest(url: url, headers: headers, caFile: caFile), policy: policy, transport: transport, timeout: timeout, maxBodyBytes: maxBytes)
                tally.record(source, freshUntil: freshUntil)
                metrics.cacheOutcome(route: routeName, outcome: source.rawValue)
                // A hit or a stale page made no upstream request that answered.
                guard source != .hit && source != .stale else { return response }
                let code = response.status.code
                let outcome = (200..<300).contains(code) ? "ok" : code < 500 ? "http_4xx" : "http_5xx"
                metrics.pageFetched(route: routeName, outcome: outcome, duration: .now - started)
                return response
            } catch {
                let outcome = if case .timedOut = error { "timeout" } else { "error" }
                metrics.pageFetched(route: routeName, outcome: outcome, duration: .now - started)
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
    }
}

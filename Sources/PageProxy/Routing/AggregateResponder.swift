import Foundation
import PageProxyCore
import PageProxyServer

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

    /// How much of a spooled answer is read and written at a time.
    static let sendChunkBytes = 64 * 1024

    func respond(to request: HTTPRequestHead, route: RouteConfig, subpath: String, response: consuming Response) async -> RequestRecord {
        var record = RequestRecord(route: route.name)
        let controls: ProxyControls
        do {
            controls = try ProxyControls.parse(request)
        } catch {
            return await response.send(error, recording: record)
        }
        let headers: HTTPHeaders
        do {
            headers = try UpstreamHeaders.make(route: route, request: request)
        } catch {
            return await response.send(error, recording: record)
        }
        let base = upstreamURL(route: route, subpath: subpath, query: controls.upstreamQuery)
        var options = PageWalker.Options()
        options.itemsPath = route.itemsPath
        options.concurrency = route.concurrency
        options.maxPages = route.maxPages
        options.pageLimit = controls.maxPages
        options.itemLimit = [controls.maxItems, route.maxItems].compactMap { $0 }.min()
        options.lookaheadMemory = lookahead
        // One retry budget and one deadline for all the pages of this request.
        var retryPolicy = RetryPolicy(budget: route.retries)
        retryPolicy.maxServerDelay = route.maxRetryAfter
        let transport = RetryingTransport(
            base: self.transport, policy: retryPolicy, deadline: .now + route.totalTimeout, budgets: budgets)
        let tally = CacheTally()
        let policy = CachePolicy(ttl: route.ttl, staleIfError: route.staleIfError, forceRevalidate: controls.fresh)
        // Only merged answers are memoized; an NDJSON request needs no key.
        let memoKey = controls.format == .json
            ? MergedAnswerMemo.key(
                route: route.name, base: base, pageLimit: options.pageLimit, itemLimit: options.itemLimit, upstreamHeaders: headers)
            : ""
        if controls.format == .json, !controls.fresh, let answer = memo.answer(for: memoKey, at: Date()) {
            return await sendMemoized(answer, route: route, request: request, record: record, response: response)
        }
        let fetch = makeFetcher(route: route, headers: headers, transport: transport, policy: policy, scan: Self.scanPaths(route), tally: tally)
        let failure = FailureContext(route: route.name, secrets: CredentialRedaction.secrets(in: headers))
        let walk: RouteWalk
        do {
            walk = try await RouteWalk.start(route: route, base: base, options: options, fetch: fetch, record: &record)
        } catch {
            record = await sendFailure(error, failure, record: record, response: response)
            return recordWalk(route: route, tally: tally, transport: transport, record: record)
        }
        response.cancelsWhenClientLeaves()
        switch controls.format {
        case .json:
            // Everything besides the pages that decides the merged bytes (AggregateETag): the items path (an auto
            // route's as detected) and the limits.
            let itemsPath = walk.headers["PageProxy-Items-Path"] ?? route.itemsPath.description
            let shape = "\(route.pagination.name)\u{0}\(itemsPath)\u{0}\(options.pageLimit ?? -1)\u{0}\(options.itemLimit ?? -1)"
            record = await respondMerged(
                walker: walk.walker, route: route, request: request, tally: tally, memoKey: memoKey, etagShape: shape,
                extraHeaders: walk.headers, failure: failure, record: record, response: response)
        case .ndjson:
            record = await respondStreamed(
                walker: walk.walker, route: route, request: request, tally: tally, extraHeaders: walk.headers, failure: failure,
                record: record, response: response)
        }
        return recordWalk(route: route, tally: tally, transport: transport, record: record)
    }

    /// The walk's cache outcomes and retries, in the request log and the metrics.
    private func recordWalk(route: RouteConfig, tally: CacheTally, transport: RetryingTransport, record: RequestRecord) -> RequestRecord {
        var record = record
        record.cache = tally.summary
        let retries = transport.retriesUsed
        metrics.retried(route: route.name, count: retries)
        if retries > 0 { record.retries = retries }
        return record
    }

    private func respondMerged(
        walker: PageWalker, route: RouteConfig, request: HTTPRequestHead, tally: CacheTally, memoKey: String, etagShape: String,
        extraHeaders: HTTPHeaders, failure: FailureContext, record: RequestRecord, response: consuming Response
    ) async -> RequestRecord {
        var record = record
        var framing = MergedJSONBody()
        // DESIGN.md: memory stays bounded whatever the total; past `spool.memoryBytes` the bytes wait on disk.
        let body = SpooledBody(
            limits: SpooledBody.Limits(memoryBytes: spool.memoryBytes, maxBytes: route.maxMergedBytes), openSpool: spool.open)
        defer { body.discard() }
        var etag = AggregateETag(shape: etagShape)
        var pages = 0
        var items = 0
        do {
            while let page = try await walker.next() {
                // Items are compacted, never longer than the page's body; with `[` and `,` at most two bytes more.
                try body.append(atMost: page.body.count + 2) { framing.append(page, to: &$0) } appended: { etag.add(page, framed: $0) }
                pages += 1
                items += page.itemCount
            }
            let closing = framing.closing()
            etag.update(closing)
            try body.append(closing)
        } catch let error as PaginationError {
            return await sendFailure(error, failure, record: record, response: response)
        } catch let error as SpoolError {
            // Stop fetching pages nobody will see; `body` has already dropped what it held.
            walker.finish()
            return await response.send(MergedSpoolFailure(error: error, route: route.name), recording: record)
        } catch {
            // `walker.next()` throws only PaginationError and `body.append` only SpoolError.
            walker.finish()
            return await response.send(HTTPError(.internalServerError, code: "internal_error", message: "\(error)"), recording: record)
        }
        let tag = etag.finalize()
        var headers = MergedAnswerHeaders.make(
            extra: extraHeaders, pages: pages, items: items, truncated: walker.wasTruncated, cache: tally.summary, stale: tally.servedStale, etag: tag)
        tally.freshness.addHeaders(to: &headers, route: route, request: request)
        record.pages = pages
        record.items = items
        // Every page stored and fresh: the answer is memoized, a spooled one too (read back once, within the memo's
        // bound), and then sent from memory.
        var kept: [UInt8]?
        if let freshUntil = tally.freshUntil, memo.accepts(byteCount: body.count), let bytes = try? body.bytes() {
            memo.keep(
                MergedAnswerMemo.Answer(
                    body: bytes, pages: pages, items: items, truncated: walker.wasTruncated, etag: tag, freshUntil: freshUntil,
                    stamps: tally.stamps, extraHeaders: extraHeaders),
                for: memoKey)
            kept = bytes
        }
        // RFC 9110 §13.1.2 — the client already holds this answer: no body.
        if AggregateETag.matches(ifNoneMatch: request.headers.values("If-None-Match"), etag: tag) {
            var notModified = headers
            notModified.remove("Content-Type")
            notModified.set("Content-Length", String(body.count))
            await response.send(.notModified, headers: notModified, body: [])
            return record
        }
        record.isSpooled = body.isSpooled
        if let kept {
            await response.send(.ok, headers: headers, body: kept)
            return record
        }
        var chunks = body.chunks(of: Self.sendChunkBytes)
        do {
            try await response.send(.ok, headers: headers, contentLength: body.count) { try chunks.next() }
        } catch let error as SpoolError {
            // The head is out: the connection closes short of Content-Length, so the client sees the loss.
            record.error = "spool_read_failed"
            record.errorMessage = error.description
        } catch {
            // The answer's length did not add up: the connection closed short of it.
        }
        return record
    }

    /// A merged answer from the memo: every page a cache hit, as the walk would have found them.
    private func sendMemoized(
        _ answer: MergedAnswerMemo.Answer, route: RouteConfig, request: HTTPRequestHead, record: RequestRecord, response: consuming Response
    ) async -> RequestRecord {
        metrics.cacheOutcome(route: route.name, outcome: CacheOutcome.hit.rawValue, count: answer.pages)
        var record = record
        record.pages = answer.pages
        record.items = answer.items
        record.cache = answer.cacheSummary
        // What caches in front may do with it depends on the time and the request, so it is not among the prepared fields.
        let freshness = AnswerFreshness()
        freshness.record(freshUntil: answer.freshUntil)
        var perRequest = HTTPHeaders()
        freshness.addHeaders(to: &perRequest, route: route, request: request)
        if AggregateETag.matches(ifNoneMatch: request.headers.values("If-None-Match"), etag: answer.etag) {
            var headers = answer.headers
            headers.remove("Content-Type")
            headers.set("Content-Length", String(answer.body.count))
            for field in perRequest { headers.set(field.name, field.value) }
            await response.send(.notModified, headers: headers, body: [])
            return record
        }
        // One lookup, one write of prepared bytes.
        await response.send(.ok, prepared: answer.preparedFields, body: answer.body, perRequest: perRequest)
        return record
    }

    private func respondStreamed(
        walker: PageWalker, route: RouteConfig, request: HTTPRequestHead, tally: CacheTally, extraHeaders: HTTPHeaders,
        failure: FailureContext, record: RequestRecord, response: consuming Response
    ) async -> RequestRecord {
        var record = record
        (record.pages, record.items) = (0, 0)
        // The first page decides the status line: a walk that fails at once gets an honest error status.
        let first: Page?
        do {
            first = try await walker.next()
        } catch {
            return await sendFailure(error, failure, record: record, response: response)
        }
        var headers = extraHeaders
        headers.set("Content-Type", OutputFormat.ndjson.contentType)
        headers.set("Cache-Control", "no-store")
        // The cache outcome of every page is known only at the end: it follows the body as trailer fields, for a
        // client that says it takes them (RFC 9110 §10.1.4, `TE: trailers`); others get a plain last chunk.
        let sendsTrailers = request.headers.tokens("TE").contains { $0.lowercased() == "trailers" }
        if sendsTrailers { headers.set("Trailer", "PageProxy-Cache, PageProxy-Stale") }
        let stream: ResponseStream
        do {
            stream = try await response.beginStream(.ok, headers: headers)
        } catch {
            walker.finish()
            return record
        }
        // A HEAD is answered once the first page has decided the status: the rest would be fetched for nothing.
        guard !stream.isHeadOnly else {
            walker.finish()
            return record
        }
        var (pages, items) = (0, 0)
        var page = first
        do {
            while let current = page {
                pages += 1
                items += current.itemCount
                try await stream.write(NDJSONBody.bytes(for: current))
                page = try await walker.next()
            }
        } catch let error as PaginationError where !PaginationErrorResponse.isCancellation(error) {
            (record.pages, record.items) = (pages, items)
            return await stream.fail(with: PaginationErrorResponse(error, route: failure.route, secrets: failure.secrets), recording: record)
        } catch {
            // The client went away: stop fetching at once.
            walker.finish()
            stream.abort()
            (record.pages, record.items) = (pages, items)
            return record
        }
        var trailers = HTTPHeaders()
        if sendsTrailers { tally.addHeaders(to: &trailers) }
        await stream.end(trailers: trailers)
        (record.pages, record.items) = (pages, items)
        return record
    }

    /// What an error report of this request needs besides the error: the route, and the credentials it sent upstream.
    private struct FailureContext {
        let route: String
        let secrets: [String]
    }

    /// Answers a walk that failed before anything was sent; a walk whose client left gets no answer and no error.
    private func sendFailure(
        _ error: PaginationError, _ context: FailureContext, record: RequestRecord, response: consuming Response
    ) async -> RequestRecord {
        guard !PaginationErrorResponse.isCancellation(error) else {
            response.abandon()
            return record
        }
        return await response.send(PaginationErrorResponse(error, route: context.route, secrets: context.secrets), recording: record)
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
        route: RouteConfig, headers: HTTPHeaders, transport: RetryingTransport, policy: CachePolicy, scan: ScanPaths?, tally: CacheTally
    ) -> PageFetcher {
        let timeout = route.pageTimeout
        let maxBytes = route.maxPageBytes
        let metrics = self.metrics
        let pages = self.pages
        let routeName = route.name
        let caFile = route.caFile
        let ttl = route.ttl
        return { url, number throws(PaginationError) in
            let started = ContinuousClock.now
            do throws(UpstreamError) {
                let fetched = try await pages.fetch(
                    UpstreamRequest(url: url, headers: headers, caFile: caFile), policy: policy, transport: transport, timeout: timeout, maxBodyBytes: maxBytes,
                    scan: scan)
                let (response, source) = (fetched.response, fetched.outcome)
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
                // A fetch cancelled because its client left is no upstream failure (its socket was closed under it).
                if error == .cancelled || Task.isCancelled {
                    metrics.pageFetched(route: routeName, outcome: "cancelled", duration: .now - started)
                    throw .cancelled
                }
                let outcome = if case .timedOut = error { "timeout" } else { "error" }
                metrics.pageFetched(route: routeName, outcome: outcome, duration: .now - started)
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
    }
}

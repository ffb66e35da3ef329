import PageProxyCore
import PageProxyServer

/// Writes an NDJSON answer: one item per line, streamed as pages arrive (DESIGN.md: memory bounded by the walk's
/// window, whatever the total); the first page decides the status line.
enum NDJSONAnswerRenderer {
    /// The most bytes of lines gathered into one write.
    static let batchBytes = 256 * 1024

    /// Sends the first page's items as soon as it arrives and each later page's as it comes; a failure after the first
    /// page ends the stream with the failure line and no last chunk.
    /// - Parameter requested: the window and fields asked for, which shape each page.
    static func render(
        walk: RouteWalk, plan: RequestPlan, items requested: RequestedItems, tally: CacheTally, record: RequestRecord,
        response: consuming Response
    ) async -> RequestRecord {
        var record = record
        let walker = walk.walker
        (record.pages, record.items) = (0, 0)
        // The first page decides the status line: a walk that fails at once gets an honest error status.
        let first: Page?
        do {
            first = try await walker.next().map { requested.shape($0, walker: walker) }
        } catch {
            return await response.send(walkFailure: error, plan: plan, recording: record)
        }
        var headers = walk.headers
        for field in requested.headers(walker: walker, walkEnded: false) { headers.set(field.name, field.value) }
        headers.set("Content-Type", OutputFormat.ndjson.contentType)
        headers.set("Cache-Control", "no-store")
        // The cache outcome of every page is known only at the end: it follows the body as trailer fields, for a
        // client that says it takes them (RFC 9110 §10.1.4, `TE: trailers`); others get a plain last chunk.
        let sendsTrailers = plan.request.headers.tokens("TE").contains { $0.lowercased() == "trailers" }
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
        // The lines of pages at hand (read in place from the cache) leave together, up to `batchBytes` a write; what
        // is pending goes out before the walk waits for a page (issue 13: a write per page was a walk's bottleneck).
        var batch: [UInt8] = []
        do {
            while let current = page {
                pages += 1
                items += current.itemCount
                // A page's lines are at most its body and a newline per item.
                if !batch.isEmpty, batch.count + current.body.count + current.itemCount > Self.batchBytes {
                    try await stream.write(batch)
                    batch.removeAll(keepingCapacity: true)
                }
                NDJSONBody.append(current, to: &batch)
                if !walker.isNextPageAtHand {
                    try await stream.write(batch)
                    batch.removeAll(keepingCapacity: true)
                }
                page = try await walker.next().map { requested.shape($0, walker: walker) }
            }
        } catch let error as PaginationError where !PaginationErrorResponse.isCancellation(error) {
            (record.pages, record.items) = (pages, items)
            // The pages before the failure are the client's: their lines go out before the failure line.
            try? await stream.write(batch)
            return await stream.fail(with: plan.failure(error), recording: record)
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
}

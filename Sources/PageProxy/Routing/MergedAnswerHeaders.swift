import PageProxyCore

/// The header fields of a merged answer: the same whether it was walked or comes from the memo.
enum MergedAnswerHeaders {
    /// - Parameters:
    ///   - extra: fields the walk added (an auto route's `PageProxy-Scheme` …), first.
    ///   - cache: the `PageProxy-Cache` summary (see `CacheTally.summary`).
    /// - Returns: the fields, with room for the ones every answer adds after them (`roomAfter`), so that the array is
    ///   allocated once (issue 13: made, mapped, grown by the freshness fields and again by the length, it was
    ///   about five allocations a request).
    static func make(extra: HTTPHeaders, pages: Int, items: Int, truncated: Bool, cache: String, stale: Bool, etag: String) -> HTTPHeaders {
        var headers = extra
        headers.reserveCapacity(extra.count + mostFields + roomAfter)
        // With no fields before them, these are new: added, not looked for first.
        let isNew = extra.count == 0
        func put(_ headers: inout HTTPHeaders, _ name: String, _ value: String) {
            if isNew { headers.add(name, value) } else { headers.set(name, value) }
        }
        put(&headers, "Content-Type", OutputFormat.json.contentType)
        put(&headers, "PageProxy-Pages", String(pages))
        put(&headers, "PageProxy-Items", String(items))
        if truncated { put(&headers, "PageProxy-Truncated", "true") }
        put(&headers, "PageProxy-Cache", cache)
        if stale { put(&headers, "PageProxy-Stale", "true") }
        put(&headers, "ETag", etag)
        return headers
    }

    /// The most fields `make` adds.
    private static let mostFields = 7
    /// The fields set after `make`'s: `Cache-Control`, `Vary`, `Age`, `Server-Timing` (`AnswerFreshness`, the
    /// renderers) and the writer's `Content-Length`.
    static let roomAfter = 5
}

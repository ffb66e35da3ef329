import PageProxyCore

/// The header fields of a merged answer: the same whether it was walked or comes from the memo.
enum MergedAnswerHeaders {
    /// - Parameters:
    ///   - extra: fields the walk added (an auto route's `PageProxy-Scheme` …), first.
    ///   - cache: the `PageProxy-Cache` summary (see `CacheTally.summary`).
    static func make(extra: HTTPHeaders, pages: Int, items: Int, truncated: Bool, cache: String, stale: Bool, etag: String) -> HTTPHeaders {
        var headers = extra
        // With no fields before them, these are new: added, not looked for first (issue 13: a walk's head).
        let put: (inout HTTPHeaders, String, String) -> Void = extra.count == 0 ? { $0.add($1, $2) } : { $0.set($1, $2) }
        put(&headers, "Content-Type", OutputFormat.json.contentType)
        put(&headers, "PageProxy-Pages", String(pages))
        put(&headers, "PageProxy-Items", String(items))
        if truncated { put(&headers, "PageProxy-Truncated", "true") }
        put(&headers, "PageProxy-Cache", cache)
        if stale { put(&headers, "PageProxy-Stale", "true") }
        put(&headers, "ETag", etag)
        return headers
    }
}

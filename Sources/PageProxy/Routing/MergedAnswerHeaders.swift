import PageProxyCore

/// The header fields of a merged answer: the same whether it was walked or comes from the memo.
enum MergedAnswerHeaders {
    /// - Parameters:
    ///   - extra: fields the walk added (an auto route's `PageProxy-Scheme` …), first.
    ///   - cache: the `PageProxy-Cache` summary (see `CacheTally.summary`).
    static func make(extra: HTTPHeaders, pages: Int, items: Int, truncated: Bool, cache: String, stale: Bool, etag: String) -> HTTPHeaders {
        var headers = extra
        headers.set("Content-Type", OutputFormat.json.contentType)
        headers.set("PageProxy-Pages", String(pages))
        headers.set("PageProxy-Items", String(items))
        if truncated { headers.set("PageProxy-Truncated", "true") }
        headers.set("PageProxy-Cache", cache)
        if stale { headers.set("PageProxy-Stale", "true") }
        headers.set("ETag", etag)
        return headers
    }
}

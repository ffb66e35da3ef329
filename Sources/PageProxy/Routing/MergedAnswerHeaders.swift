import PageProxyCore

/// The header fields of a merged answer: the same whether it was walked or comes from the memo.
enum MergedAnswerHeaders {
    /// - Parameters:
    ///   - extra: fields the walk added (an auto route's `PageProxy-Scheme` …), first.
    ///   - cache: the `PageProxy-Cache` summary (see `CacheTally.summary`).
    static func make(extra: HTTPHeaders, pages: Int, items: Int, truncated: Bool, cache: String, stale: Bool, etag: String) -> HTTPHeaders {
        var fields: [(String, String)] = []
        fields.reserveCapacity(Self.mostFields)
        fields.append(("Content-Type", OutputFormat.json.contentType))
        fields.append(("PageProxy-Pages", String(pages)))
        fields.append(("PageProxy-Items", String(items)))
        if truncated { fields.append(("PageProxy-Truncated", "true")) }
        fields.append(("PageProxy-Cache", cache))
        if stale { fields.append(("PageProxy-Stale", "true")) }
        fields.append(("ETag", etag))
        // With no fields before them, these are new: the head is made from them at once, not looked for first
        // (issue 13: grown from empty one `add` at a time, its array was four allocations a request, now two).
        guard extra.count > 0 else { return HTTPHeaders(fields) }
        var headers = extra
        for (name, value) in fields { headers.set(name, value) }
        return headers
    }

    /// The most fields `make` adds.
    private static let mostFields = 7
}

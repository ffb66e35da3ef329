/// `scheme: "auto"` for pagination stated as JSON in a response header: flask-smorest's `X-Pagination: {"total":
/// 1000, "total_pages": 10, "page": 1, "next_page": 2, …}` (the body a bare array) and ASP.NET Core's common
/// `X-Pagination: {"TotalCount": 1000, "PageSize": 100, "CurrentPage": 1, "TotalPages": 10, "HasNext": true}`.
extension SchemeDetector {
    /// Headers that hold the pagination as a JSON object.
    static let paginationHeaders = ["X-Pagination", "Pagination"]
    /// Keys of such a header, in the order tried: the page count, the item count, the next page's number.
    static let headerPageCountKeys = ["total_pages", "totalPages", "TotalPages", "page_count", "pageCount", "PageCount"]
    static let headerTotalKeys = [
        "total", "Total", "total_count", "totalCount", "TotalCount", "total_items", "totalItems", "TotalItems", "count", "Count",
        "total_records", "totalRecords", "TotalRecords",
    ]
    /// Keys that say whether another page follows (ASP.NET's `HasNext`): `false` there is the last page.
    static let headerHasNextKeys = ["HasNext", "hasNext", "has_next", "HasNextPage", "hasNextPage", "has_next_page"]
    static let headerNextPageKeys = ["next_page", "nextPage", "NextPage"]
    /// Query parameters that number pages, in the order looked for in the first page's URL.
    static let pageParameters = ["page", "current_page", "currentPage", "pageNumber", "PageNumber", "CurrentPage", "p", "__page"]

    /// What a JSON pagination header states.
    struct PaginationHeader {
        let name: String
        var pageCount: (path: JSONPath, value: Int)?
        var total: (path: JSONPath, value: Int)?
        /// The next page's number as written (absent on flask-smorest's last page).
        var nextPage: (path: JSONPath, value: String)?
        /// The query parameter the header's name for the current page implies (`CurrentPage` → `pageNumber`).
        var pageParameter: String?
    }

    /// The first pagination header that is a JSON object stating a page count, a total or a next page.
    static func paginationHeader(_ headers: HTTPHeaders) -> PaginationHeader? {
        for name in paginationHeaders {
            guard let text = headers[name], text.first(where: { !$0.isWhitespace }) == "{" else { continue }
            let keys = (headerPageCountKeys + headerTotalKeys + headerNextPageKeys + pageParameterOfCurrentPageKey.map(\.key))
                .map { JSONPath(components: [.key($0)]) }
            guard let values = try? JSONScanner().values(in: Array(text.utf8), at: keys) else { continue }
            func first(_ names: [String]) -> (path: JSONPath, value: JSONValue)? {
                names.lazy.map { JSONPath(components: [.key($0)]) }.compactMap { path in values[path].map { (path, $0) } }.first
            }
            var header = PaginationHeader(name: name)
            header.pageParameter = impliedPageParameter(values)
            header.pageCount = first(headerPageCountKeys).flatMap { found in found.value.statedCount.map { (found.path, $0) } }
            header.total = first(headerTotalKeys).flatMap { found in found.value.statedCount.map { (found.path, $0) } }
            if let found = first(headerNextPageKeys), let next = found.value.integer {
                header.nextPage = (found.path, String(next))
            }
            if header.pageCount != nil || header.total != nil || header.nextPage != nil { return header }
        }
        return nil
    }

    /// Whether a JSON pagination header says no page follows (`"HasNext": false`), whatever else it holds.
    static func headerSaysLastPage(_ text: String) -> Bool {
        let keys = headerHasNextKeys.map { JSONPath(components: [.key($0)]) }
        guard let values = try? JSONScanner().values(in: Array(text.utf8), at: keys) else { return false }
        return keys.contains { values[$0] == .bool(false) }
    }

    /// The scheme for a JSON pagination header: numbered pages, all known after the first from the page count (or
    /// the total); with neither, the next page's number from the header, one page after another.
    static func scheme(for header: PaginationHeader, url: PageURL) -> (scheme: PaginationScheme, evidence: String) {
        let pageParameter = pageParameters.first { url.queryValue($0) != nil } ?? header.pageParameter ?? "page"
        if header.pageCount != nil || header.total != nil {
            var options = PaginationScheme.PageNumber(pageParameter: pageParameter)
            if let (path, _) = header.pageCount {
                (options.totalPagesHeader, options.totalPagesHeaderPath) = (header.name, path)
            } else if let (path, _) = header.total {
                (options.totalItemsHeader, options.totalItemsHeaderPath) = (header.name, path)
            }
            let key = options.totalPagesHeaderPath ?? options.totalItemsHeaderPath ?? .root
            return (.pageNumber(options), "\(header.name) header \"\(key)\"")
        }
        var options = PaginationScheme.NextPageHeader(pageParameter: pageParameter, nextPageHeader: header.name, totalPagesHeader: nil)
        options.nextPageHeaderPath = header.nextPage?.path
        return (.nextPageHeader(options), "\(header.name) header \"\(options.nextPageHeaderPath ?? .root)\"")
    }
}

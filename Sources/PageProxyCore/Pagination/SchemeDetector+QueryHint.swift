/// `scheme: "auto"` for a page that states a total but no way to the next page (django-ninja's `{"items": […],
/// "count": 1000}`): the first page's URL tells the numbering when it names it, `?limit=100` or `?offset=0` an
/// offset walk, `?page=1` or a page-size parameter (`page_size`, `per_page`, `size`) a numbered one.
extension SchemeDetector {
    static let offsetParameters = ["offset", "skip", "start"]
    /// DataTables' `length` too, beside its `start` (real15); alone it is too common a name for other things.
    static let limitParameters = ["limit", "length"]
    /// Piccolo API's `__page_size` too (its `__page` is in `pageParameters`), and Mailman's `count` (with `page`).
    static let sizeParameters = ["page_size", "per_page", "pageSize", "PageSize", "size", "perPage", "__page_size", "count"]
    /// The page parameter of a size parameter whose API does not number pages with `page`, for a URL that names only
    /// the size (Piccolo API: `?__page_size=100` is paged by `__page`, and a `page` it would read as a filter).
    static let pageParameterOfSize = ["__page_size": "__page"]

    /// Where the first page stated its total: a body path or a header (with a path into its JSON).
    enum TotalSource {
        case body(JSONPath)
        case header(String, JSONPath?)
    }

    /// The scheme the URL's query names, with the total's source; nil when it names neither numbering.
    static func schemeFromQuery(
        _ url: PageURL, itemCount: Int, total: TotalSource
    ) -> (scheme: PaginationScheme, evidence: String)? {
        let offsetName = offsetParameters.first { url.queryValue($0) != nil }
        let limitName = limitParameters.first { url.queryValue($0) != nil && ($0 != "length" || url.queryValue("start") != nil) }
        if offsetName != nil || limitName != nil {
            var options = PaginationScheme.Offset()
            options.offsetParameter = offsetName ?? options.offsetParameter
            options.limitParameter = limitName ?? options.limitParameter
            options.limit = limitName.flatMap { url.integerQueryValue($0) }.flatMap { $0 >= 1 ? $0 : nil } ?? max(1, itemCount)
            switch total {
            case .body(let path): options.totalItemsPath = path
            case .header(let name, let path): (options.totalItemsHeader, options.totalItemsHeaderPath) = (name, path)
            }
            return (.offset(options), "the URL's \"\(offsetName ?? limitName ?? "")\" parameter and the total")
        }
        let pageName = pageParameters.first { url.queryValue($0) != nil }
        // `count` means a page's size only beside a page number (Mailman's `?count=&page=`); alone it is too common a
        // name for other things (review16 R7: an upstream that ignores `page` would answer its first page again and again).
        let sizeName = sizeParameters.first { url.queryValue($0) != nil && ($0 != "count" || pageName != nil) }
        guard pageName != nil || sizeName != nil else { return nil }
        var options = PaginationScheme.PageNumber(pageParameter: pageName ?? sizeName.flatMap { pageParameterOfSize[$0] } ?? "page")
        if let sizeName {
            options.sizeParameter = sizeName
            options.pageSize = url.integerQueryValue(sizeName).flatMap { $0 >= 1 ? $0 : nil }
        }
        switch total {
        case .body(let path): options.totalItemsPath = path
        case .header(let name, let path): (options.totalItemsHeader, options.totalItemsHeaderPath) = (name, path)
        }
        return (.pageNumber(options), "the URL's \"\(pageName ?? sizeName ?? "")\" parameter and the total")
    }
}

/// `?offset=N&limit=M`: stop at a total or a short page; fan out once the total is known.
struct OffsetStrategy: PaginationStrategy {
    let options: PaginationScheme.Offset

    var valuePaths: [JSONPath] { [options.totalItemsPath].compactMap { $0 } }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue("0", for: options.offsetParameter)
            .defaultingQueryValue(String(options.limit), for: options.limitParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        guard page.itemCount > 0 else { return .none }
        let offset = page.url.integerQueryValue(options.offsetParameter) ?? 0
        let limit = page.url.integerQueryValue(options.limitParameter) ?? options.limit
        let total = options.totalItemsPath.flatMap { page.values[$0]?.integer } ?? page.headers.integer(options.totalItemsHeader)
        if let total {
            let offsets = stride(from: offset + limit, to: total, by: max(limit, 1))
            return .all(offsets.map { page.url.settingQueryValue(String($0), for: options.offsetParameter) })
        }
        if page.itemCount < limit { return .none }
        return .one(page.url.settingQueryValue(String(offset + limit), for: options.offsetParameter))
    }

    var lookahead: Int { options.lookahead }

    func guessNext(after url: PageURL) -> PageURL? {
        let offset = url.integerQueryValue(options.offsetParameter) ?? 0
        let limit = url.integerQueryValue(options.limitParameter) ?? options.limit
        return url.settingQueryValue(String(offset + limit), for: options.offsetParameter)
    }
}

/// `?page=N&per_page=M`: stop on an empty or short page, or fan out once a total is known.
struct PageNumberStrategy: PaginationStrategy {
    let options: PaginationScheme.PageNumber

    var valuePaths: [JSONPath] { [options.totalItemsPath, options.totalPagesPath].compactMap { $0 } }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue(String(options.firstPage), for: options.pageParameter)
            .defaultingQueryValue(options.pageSize.map(String.init), for: options.sizeParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        guard page.itemCount > 0 else { return .none }
        let current = page.url.integerQueryValue(options.pageParameter) ?? options.firstPage
        let pageSize = page.url.integerQueryValue(options.sizeParameter) ?? options.pageSize
        if let lastPage = lastPageNumber(page, pageSize: pageSize) {
            return .all(pageURLs(after: page.url, current: current, through: lastPage))
        }
        if let pageSize, page.itemCount < pageSize { return .none }
        return .one(page.url.settingQueryValue(String(current + 1), for: options.pageParameter))
    }

    var lookahead: Int { options.lookahead }

    func guessNext(after url: PageURL) -> PageURL? {
        let current = url.integerQueryValue(options.pageParameter) ?? options.firstPage
        return url.settingQueryValue(String(current + 1), for: options.pageParameter)
    }

    private func lastPageNumber(_ page: Page, pageSize: Int?) -> Int? {
        let firstOffset = options.firstPage - 1
        if let path = options.totalPagesPath, let pages = page.values[path]?.integer { return pages + firstOffset }
        if let pages = page.headers.integer(options.totalPagesHeader) { return pages + firstOffset }
        if let path = options.totalItemsPath, let total = page.values[path]?.integer {
            let size = pageSize ?? page.itemCount
            return (total + size - 1) / size + firstOffset
        }
        return nil
    }

    private func pageURLs(after url: PageURL, current: Int, through last: Int) -> [PageURL] {
        guard last > current else { return [] }
        return (current + 1...last).map { url.settingQueryValue(String($0), for: options.pageParameter) }
    }
}

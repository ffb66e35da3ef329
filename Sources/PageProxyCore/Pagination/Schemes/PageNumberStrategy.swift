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
        // A page size below 1 (the client's `per_page=0`) says nothing about the page count: treat it as unknown.
        let pageSize = (page.url.integerQueryValue(options.sizeParameter) ?? options.pageSize).flatMap { $0 >= 1 ? $0 : nil }
        let lastPage = lastPageNumber(page, pageSize: pageSize)
        // A short page with no total is the last: its own number is not read (issue 13: a walk of one page).
        if lastPage == nil, let pageSize, page.itemCount < pageSize { return .none }
        let current = page.url.integerQueryValue(options.pageParameter) ?? options.firstPage
        // The client chooses the page number: there is no page after Int.max.
        let (next, overflow) = current.addingReportingOverflow(1)
        if overflow { return .none }
        if let lastPage {
            return .all(NumberedPages(template: page.url, parameter: options.pageParameter, first: next, through: lastPage))
        }
        return .one(page.url.settingQueryValue(String(next), for: options.pageParameter))
    }

    var lookahead: Int { options.lookahead }

    var endStatuses: Set<Int> { options.endStatuses }

    func guessNext(after url: PageURL) -> PageURL? {
        url.advancingQueryValue(options.pageParameter, by: 1, from: options.firstPage)
    }

    /// The last page's number from a total; totals come from the upstream, so the arithmetic saturates instead of
    /// trapping (a saturated count is far past any route's maxPages, which then refuses the walk).
    private func lastPageNumber(_ page: Page, pageSize: Int?) -> Int? {
        let pages: Int
        if let path = options.totalPagesPath, let total = page.values[path]?.statedCount {
            pages = total
        } else if let total = page.headers.statedCount(options.totalPagesHeader, at: options.totalPagesHeaderPath) {
            pages = total
        } else if let total = options.totalItemsPath.flatMap({ page.values[$0]?.statedCount })
            ?? page.headers.statedCount(options.totalItemsHeader, at: options.totalItemsHeaderPath)
        {
            // itemCount > 0 here, so the size is at least 1; a ceiling division that cannot overflow.
            let size = pageSize ?? page.itemCount
            pages = total / size + (total % size == 0 ? 0 : 1)
        } else {
            return nil
        }
        // Page numbers start at firstPage: the last one is pages + firstPage - 1 (pages >= 0, so only upwards).
        let (end, overflow) = pages.addingReportingOverflow(options.firstPage)
        if overflow { return Int.max }
        return end == .min ? nil : end - 1
    }
}

import PageProxyCore

/// How many of the list's items come before a walk's first page, read from that page's URL: a merged answer may start
/// mid-list (a client's own `?page=3` or `?offset=20`, a route whose `upstream` starts at `?page=3`), and a total the
/// upstream states counts from the list's first item (review26 M1: a walk from `page=3` that read every page the total
/// numbered held 30 of a true 50, and the total was dropped as one its items fell short of).
enum ItemsBeforeWalk {
    /// For an `offset` scheme the first page's offset; for `page-number` the pages before it times the items it holds
    /// (the size a total numbers the pages after it by); 0 for every other scheme, which numbers no page from a total.
    /// Saturates: the values come from a URL.
    static func count(firstPage page: Page, scheme: PaginationScheme) -> Int {
        switch scheme {
        case .offset(let options):
            return max(0, page.url.integerQueryValue(options.offsetParameter) ?? 0)
        case .pageNumber(let options):
            let current = page.url.integerQueryValue(options.pageParameter) ?? options.firstPage
            let (pages, overflow) = current.subtractingReportingOverflow(options.firstPage)
            guard !overflow else { return current < options.firstPage ? 0 : Int.max }
            let (items, itemsOverflow) = max(0, pages).multipliedReportingOverflow(by: page.itemCount)
            return itemsOverflow ? Int.max : items
        case .linkHeader, .nextPageHeader, .nextURLInBody, .cursorInBody, .hasMore:
            return 0
        }
    }
}

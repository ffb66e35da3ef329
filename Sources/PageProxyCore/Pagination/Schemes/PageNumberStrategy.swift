/// `?page=N&per_page=M`: stop on an empty or short page, or fan out once a total is known.
struct PageNumberStrategy: PaginationStrategy {
    let options: PaginationScheme.PageNumber

    var valuePaths: [JSONPath] { [options.totalItemsPath, options.totalPagesPath].compactMap { $0 } + Self.nextLinkPaths }

    /// Where a page may name the next one though the scheme follows no link (DRF's `next`, Laravel's `next_page_url`,
    /// JSON:API's `links.next`): a first page short of the route's own size that names one shows the upstream's cap.
    static let nextLinkPaths = ["next", "next_page_url", "links.next"].compactMap { JSONPath($0) }

    /// Whether `page` says a next page follows: a link at one of `nextLinkPaths`, or a `Link` header's `rel="next"`.
    private func namesNextPage(_ page: Page) -> Bool {
        Self.nextLinkPaths.contains { page.values[$0]?.nonEmptyString != nil }
            || (page.headers["Link"] != nil && LinkHeaderParser.parse(page.headers).contains { $0.relations.contains("next") && $0.isAbout(page.url) })
    }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue(String(options.firstPage), for: options.pageParameter)
            .defaultingQueryValue(options.pageSize.map(String.init), for: options.sizeParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        next(after: page, firstPageItemCount: page.itemCount)
    }

    func next(after page: Page, firstPageItemCount: Int) -> NextPages {
        guard page.itemCount > 0 else { return .none }
        let (asked, trusted, current, stated) = read(page)
        // A short page with no total is the last: its own number is not read (issue 13: a walk of one page). A size
        // the upstream may cap (`AskedPageSize`) is measured by the walk's first page: one short of it held the cap,
        // or the whole list (then the next page is empty, or the first again: `mayRepeatPastEnd`); one that held it
        // all showed the size within the cap (review14 F13: such a walk ended only at an empty page). So is the route's
        // own size when the list's first page is short of it and names a next page (real18 F1: DRF's `max_page_size=7`
        // under the route's 100 answered 7 of 1,000 items as the whole list, under a 200); a short first page that
        // names none is still the whole list, with no request past it. A window's jump to a later page short of the
        // size still ends there: its first page was full, or the window walks again (`ItemWindow.FirstPageCheck`).
        let measures = !trusted || page.number > 1 || (current == options.firstPage && namesNextPage(page))
        let size = measures ? asked.map { min($0, firstPageItemCount) } : asked
        // A walk's first page at a later number, short of the size and ending the list by it, may be the upstream's cap
        // instead (`capOrEnd`): the next page tells, one request.
        let checksCap = stated == nil && capOrEnd(page, asked: asked, current: current)
        if !checksCap, stated == nil, let size, page.itemCount < size { return .none }
        // The client chooses the page number: there is no page after Int.max.
        let (next, overflow) = current.addingReportingOverflow(1)
        if overflow { return .none }
        // Past that check page, the pages the upstream serves are numbered by the count the walk's first page held
        // (review20 H3: the size asked numbered none past it).
        let measured = !checksCap && measures && size != asked ? size : nil
        let lastPage = stated ?? measured.flatMap { lastPageNumber(page, current: current, pageSize: $0, mayShowCap: false) }
        if let lastPage {
            return .all(NumberedPages(template: page.url, parameter: options.pageParameter, first: next, through: lastPage))
        }
        return .one(page.url.settingQueryValue(String(next), for: options.pageParameter))
    }

    /// A stated count of pages (a body path or a header).
    private func statedPageCount(_ page: Page) -> Int? {
        options.totalPagesPath.flatMap { page.values[$0]?.statedCount }
            ?? page.headers.statedCount(options.totalPagesHeader, at: options.totalPagesHeaderPath)
    }

    /// Whether `page` states a count of pages or of items (`lastPageNumber` reads none without one).
    private func statesACount(_ page: Page) -> Bool {
        statedPageCount(page) != nil || statedItemCount(page) != nil
    }

    /// A stated count of items (a body path or a header).
    private func statedItemCount(_ page: Page) -> Int? {
        options.totalItemsPath.flatMap { page.values[$0]?.statedCount }
            ?? page.headers.statedCount(options.totalItemsHeader, at: options.totalItemsHeaderPath)
    }

    var statesAnEstimate: Bool { options.totalIsEstimate || StatedEnd.namesAnEstimate(options.totalItemsPath) }

    func statedEnd(on page: Page) -> StatedEnd? {
        guard !statesAnEstimate else { return nil }
        if let pages = statedPageCount(page) { return .pages(pages) }
        return statedItemCount(page).flatMap { $0 < page.itemCount ? nil : .items($0) }
    }

    /// Only after a total of items: a count of pages is not an estimate's (flask-smorest's, Litestar's `total_pages`).
    /// A page is full when it holds the size asked, or `fullAt` (the upstream's cap); with no size known, no page is.
    func pageAfterStatedEnd(_ page: Page, fullAt: Int?) -> PageURL? {
        guard page.itemCount > 0, statedPageCount(page) == nil, statedItemCount(page) != nil else { return nil }
        let (asked, _, current, _) = read(page)
        guard let asked, page.itemCount >= asked || fullAt.map({ page.itemCount >= $0 }) == true else { return nil }
        let (next, overflow) = current.addingReportingOverflow(1)
        return overflow ? nil : page.url.settingQueryValue(String(next), for: options.pageParameter)
    }

    /// The page that numbered the pages after it is not the last: it holds a whole page of what the upstream serves
    /// (the size asked, or its cap), and so does every page after it but the last when a total of items numbered them.
    /// A count of pages is the upstream's own numbering, which a changed size changes (`StatedEndCheck` compares it):
    /// under one, a page may hold fewer (rows deleted meanwhile), never more.
    func itemsPerNumberedPage(_ pages: NumberedPages, after page: Page) -> NumberedPageSize? {
        page.itemCount > 0 ? NumberedPageSize(items: page.itemCount, exact: statedPageCount(page) == nil) : nil
    }

    /// Under a size the upstream may cap and no total, the page after may be this one again: an upstream that answers
    /// any page past its end with its last page (attack7 F3) sends no short or empty page to end the walk.
    /// Under the route's own size too (walk18: Django's `get_page()` over 30 items, 10 a page, ran to `maxPages` and a
    /// 502): every page after the walk's first, a first page short of it (which may ask the next: real18 F1), and a
    /// window's jump (its second page repeating it is told apart by the list's first page: `listFirstPage`). The second
    /// page after the list's full first one is left to `IgnoredPageNumber`: the first page again there is an upstream
    /// that does not read the page number as often as one past its end.
    func mayRepeatPastEnd(after page: Page) -> Bool {
        guard page.itemCount > 0 else { return false }
        // A later page of the walk with no count stated has no last page, and nothing else here is asked of it: its URL's
        // number and size are not read (issue 13: they were read from the query 4–5 times a page).
        if page.number > 1, !statesACount(page) { return true }
        let (asked, trusted, current, lastPage) = read(page)
        return lastPage == nil
            && (!trusted || page.number > 1 || current != options.firstPage || asked.map { page.itemCount < $0 } == true)
    }

    func listFirstPage(before url: PageURL) -> PageURL? {
        guard let number = url.integerQueryValue(options.pageParameter), number > options.firstPage else { return nil }
        return url.settingQueryValue(String(options.firstPage), for: options.pageParameter)
    }

    /// The page `maxPages` numbers past `page`: one no walk from here reaches.
    func pageFarPast(_ page: Page, by pages: Int) -> PageURL? {
        let current = page.url.integerQueryValue(options.pageParameter) ?? options.firstPage
        let (far, overflow) = current.addingReportingOverflow(max(1, pages))
        return overflow ? nil : page.url.settingQueryValue(String(far), for: options.pageParameter)
    }

    /// Pages numbered from a total by the count a short first page served (a cap, or a filter that hid items after
    /// cutting the page: real18 F3) past those the size asked numbers from it: an end status there is the list's end.
    func endStatusEndsFrom(_ pages: NumberedPages, after page: Page) -> Int? {
        let (asked, _, current, lastPage) = read(page)
        guard let asked, let lastPage, page.itemCount < asked,
            let byAsked = lastPageNumber(page, current: current, pageSize: asked, mayShowCap: false),
            byAsked < lastPage
        else { return nil }
        let (index, overflow) = byAsked.subtractingReportingOverflow(current)
        return overflow ? nil : max(0, index)
    }

    var lookahead: Int { options.lookahead }

    var endStatuses: Set<Int> { options.endStatuses }

    func guessNext(after url: PageURL) -> PageURL? {
        url.advancingQueryValue(options.pageParameter, by: 1, from: options.firstPage)
    }

    /// The size `page` asks for and whether it is trusted (`AskedPageSize`), its number, and the last page's number
    /// when a total is stated.
    private func read(_ page: Page) -> (asked: Int?, trusted: Bool, current: Int, lastPage: Int?) {
        let (asked, trusted) = AskedPageSize.of(page.url, parameter: options.sizeParameter, route: options.pageSize)
        let current = page.url.integerQueryValue(options.pageParameter) ?? options.firstPage
        // A first page short of the size, under a total that says more, shows the upstream's cap (attack12 L4): of a
        // client's size, or of the route's own (real13: a route's 200 against a cap of 100 numbered 450 items as 3 pages).
        // So does a walk's first page at a later number (a client's `?page=3`) short of the size where the pages before
        // it and its items by that size fall short of the total: it cannot be the last page (review20 H3). Where they
        // meet the total it may be either (`capOrEnd`): no last page is read from it.
        let mayShowCap = current == options.firstPage || page.number == 1
        let lastPage = capOrEnd(page, asked: asked, current: current) ? nil : lastPageNumber(page, current: current, pageSize: asked, mayShowCap: mayShowCap)
        return (asked, trusted, current, lastPage)
    }

    /// Whether `page`, a walk's first page at a number past the list's first (`current`), short of the size its URL asks
    /// (`asked`), ends the list by that size under a stated total of items: the list's short last page, or a page the
    /// upstream cut to its cap (numbered by what it serves, so more pages follow). The next page tells (review20 H3:
    /// `?page=3` of 50 items at 20 a page, capped to 10, answered items 21–30 as the whole list). Only a walk's first
    /// page: a later one's is not read so.
    private func capOrEnd(_ page: Page, asked: Int?, current: Int) -> Bool {
        guard page.number == 1, current > options.firstPage, let asked, page.itemCount > 0, page.itemCount < asked,
            statedPageCount(page) == nil, let total = statedItemCount(page)
        else { return false }
        let (before, overflow) = current.subtractingReportingOverflow(options.firstPage)
        return !overflow && Self.itemsThrough(before, of: asked, and: page.itemCount) == total
    }

    /// The items through a page holding `items` after `pagesBefore` pages of `size`; nil past `Int.max`.
    private static func itemsThrough(_ pagesBefore: Int, of size: Int, and items: Int) -> Int? {
        let (skipped, skippedOverflow) = pagesBefore.multipliedReportingOverflow(by: size)
        let (seen, seenOverflow) = skipped.addingReportingOverflow(items)
        return skippedOverflow || seenOverflow ? nil : seen
    }

    /// The last page's number from a total; totals come from the upstream, so the arithmetic saturates instead of
    /// trapping (a saturated count is far past any route's maxPages, which then refuses the walk).
    /// - Parameter current: the page's number in its URL (`read`).
    private func lastPageNumber(_ page: Page, current: Int, pageSize: Int?, mayShowCap: Bool) -> Int? {
        let pages: Int
        // Pages before this one (none for a page number below the first; a count past Int saturates).
        let (before, beforeOverflow) = current.subtractingReportingOverflow(options.firstPage)
        let pagesBefore = beforeOverflow ? Int.max : max(0, before)
        if let total = statedPageCount(page) {
            // A count of pages that does not reach this very page is no end (review17 B10): the short-page rule decides.
            guard total > pagesBefore else { return nil }
            pages = total
        } else if let total = statedItemCount(page) {
            // itemCount > 0 here, so the size is at least 1; a ceiling division that cannot overflow. A page that may
            // show the upstream's cap and is short of the size with more items stated does: the upstream numbers its
            // pages by what it serves.
            var size = pageSize ?? page.itemCount
            if mayShowCap, page.itemCount < size, let seen = Self.itemsThrough(pagesBefore, of: size, and: page.itemCount),
                seen < total
            {
                size = page.itemCount
            }
            // A total lower than the items up to this page's end (an estimated count, a `0` beside items) is no end
            // either: it would end the walk with the items past it never asked for (review17 B10).
            guard let seen = Self.itemsThrough(pagesBefore, of: size, and: page.itemCount), seen <= total else { return nil }
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

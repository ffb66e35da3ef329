/// A next URL in the body (DRF `next`, JSON:API `links.next`), absolute or relative; null or absent ends the walk.
/// With a total in the body and a next link that numbers its pages, the remaining pages are known ahead.
struct NextURLInBodyStrategy: PaginationStrategy {
    let options: PaginationScheme.NextURLInBody

    var valuePaths: [JSONPath] { [options.nextPath, options.totalItemsPath, options.totalPagesPath].compactMap { $0 } }

    func firstPage(from base: PageURL) -> PageURL { base }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        guard let link = page.values[options.nextPath]?.nonEmptyString else { return .none }
        guard let next = page.url.resolving(link) else { throw .invalidNextLink(page: page.number, link: link) }
        // The link's own numbering, continued to the total: page=2, 3 … or offset=10, 20 … (the numbers are the
        // upstream's; NumberedPages counts them without overflow and the walk checks the count before any URL).
        if let pages = expectedPageCount(after: page), pages > page.number,
            let numbering = PageNumbering(from: page.url, to: next, itemCount: page.itemCount)
        {
            let (span, spanOverflow) = (pages - page.number - 1).multipliedReportingOverflow(by: numbering.step)
            let (last, lastOverflow) = numbering.first.addingReportingOverflow(span)
            if !spanOverflow && !lastOverflow {
                return .all(NumberedPages(template: next, parameter: numbering.parameter, first: numbering.first, through: last, step: numbering.step))
            }
        }
        return .one(next)
    }

    func expectedPageCount(after first: Page) -> Int? {
        if let path = options.totalPagesPath, let pages = first.values[path]?.statedCount { return pages }
        guard let path = options.totalItemsPath, let total = first.values[path]?.statedCount, first.itemCount > 0 else { return nil }
        // The first page's size is the page size; a ceiling division that cannot overflow.
        return total / first.itemCount + (total % first.itemCount == 0 ? 0 : 1)
    }
}

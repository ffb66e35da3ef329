import Foundation

/// GitLab's `X-Next-Page` (empty on the last page), with `X-Total-Pages` to fan out.
struct NextPageHeaderStrategy: PaginationStrategy {
    let options: PaginationScheme.NextPageHeader

    var valuePaths: [JSONPath] { [] }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue(options.pageSize.map(String.init), for: options.sizeParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        guard let nextText = page.headers[options.nextPageHeader]?.trimmingCharacters(in: .whitespaces), !nextText.isEmpty
        else { return .none }
        guard let nextNumber = Int(nextText), nextNumber > 0 else {
            throw .invalidNextLink(page: page.number, link: nextText)
        }
        // A described range, never a list: X-Total-Pages may say 10^18, and the walk refuses that before any URL.
        if let totalPages = page.headers.statedCount(options.totalPagesHeader), totalPages >= nextNumber {
            return .all(NumberedPages(template: page.url, parameter: options.pageParameter, first: nextNumber, through: totalPages))
        }
        return .one(page.url.settingQueryValue(String(nextNumber), for: options.pageParameter))
    }
}

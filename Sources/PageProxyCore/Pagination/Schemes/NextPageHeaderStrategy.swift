import Foundation

/// GitLab's `X-Next-Page` (empty on the last page), with `X-Total-Pages` to fan out; or a header that names the next
/// page by its URL (Kinto's `Next-Page: http://…/records?_limit=100&_token=…`, absent on the last page), followed as a
/// next link is.
struct NextPageHeaderStrategy: PaginationStrategy {
    let options: PaginationScheme.NextPageHeader

    var statesEachEnd: Bool { true }

    var followsUpstream: Bool { true }

    var wayOnHeader: String? { options.nextPageHeader }

    var valuePaths: [JSONPath] { [] }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue(options.pageSize.map(String.init), for: options.sizeParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        guard let nextText = nextPageText(page.headers), !nextText.isEmpty else { return .none }
        guard let nextNumber = Int(nextText), nextNumber > 0 else {
            // Not a number: a URL (absolute, a path or a query), resolved against the URL that answered (RFC 3986 §5.1.3).
            guard SchemeDetector.looksLikeURL(nextText), let next = page.answeredURL.resolving(nextText) else {
                throw .invalidNextLink(page: page.number, link: nextText)
            }
            return .one(next)
        }
        // A described range, never a list: X-Total-Pages may say 10^18, and the walk refuses that before any URL.
        if let totalPages = page.headers.statedCount(options.totalPagesHeader, at: options.totalPagesHeaderPath), totalPages >= nextNumber {
            return .all(NumberedPages(template: page.url, parameter: options.pageParameter, first: nextNumber, through: totalPages))
        }
        return .one(page.url.settingQueryValue(String(nextNumber), for: options.pageParameter))
    }

    /// The next page's number as the header writes it: the whole value, or with a path the JSON number or string
    /// there (a null or absent one, as on flask-smorest's last page, is no next page).
    private func nextPageText(_ headers: HTTPHeaders) -> String? {
        guard let path = options.nextPageHeaderPath else {
            return headers[options.nextPageHeader]?.trimmingCharacters(in: .whitespaces)
        }
        switch headers.jsonValue(options.nextPageHeader, at: path) {
        case .number(let text)?, .string(let text)?: return text
        case nil, .null?: return nil
        case let other?: return String(describing: other)
        }
    }
}

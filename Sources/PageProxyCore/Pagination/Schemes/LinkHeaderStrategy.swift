/// RFC 8288 `Link` headers: follow `rel="next"`; with `rel="last"` and numbered pages, fan out to every page.
struct LinkHeaderStrategy: PaginationStrategy {
    let options: PaginationScheme.LinkHeader

    var statesEachEnd: Bool { true }

    var followsUpstream: Bool { true }

    var valuePaths: [JSONPath] { [] }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue(options.pageSize.map(String.init), for: options.sizeParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        let links = LinkHeaderParser.parse(page.headers)
        guard let nextLink = links.first(where: { $0.relations.contains("next") }) else { return .none }
        guard let next = page.url.resolving(nextLink.target) else {
            throw .invalidNextLink(page: page.number, link: nextLink.target)
        }
        // With `last`, and both links numbered by the page parameter, every remaining page is known now. The
        // numbers are the upstream's: NumberedPages counts them without overflow, and the walk checks the count.
        if let lastLink = links.first(where: { $0.relations.contains("last") }),
            let last = page.url.resolving(lastLink.target),
            let nextNumber = next.integerQueryValue(options.pageParameter),
            let lastNumber = last.integerQueryValue(options.pageParameter)
                ?? last.queryValue(options.pageParameter).flatMap({ StatedCount.digitsPastInt(Substring($0)) }),
            last.origin == next.origin, lastNumber >= nextNumber
        {
            return .all(NumberedPages(template: next, parameter: options.pageParameter, first: nextNumber, through: lastNumber))
        }
        return .one(next)
    }

    var lookahead: Int { options.lookahead }

    /// The page after `url` by its number (the first page has none: it is page 1).
    func guessNext(after url: PageURL) -> PageURL? {
        url.advancingQueryValue(options.pageParameter, by: 1, from: 1)
    }
}

/// A next URL in the body (DRF `next`, JSON:API `links.next`), absolute or relative; null or absent ends the walk.
struct NextURLInBodyStrategy: PaginationStrategy {
    let options: PaginationScheme.NextURLInBody

    var valuePaths: [JSONPath] { [options.nextPath] }

    func firstPage(from base: PageURL) -> PageURL { base }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        guard let link = page.values[options.nextPath]?.nonEmptyString else { return .none }
        guard let next = page.url.resolving(link) else { throw .invalidNextLink(page: page.number, link: link) }
        return .one(next)
    }
}

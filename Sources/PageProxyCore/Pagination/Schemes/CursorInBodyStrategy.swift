/// An opaque cursor in the body sent back as a parameter (Slack's `response_metadata.next_cursor`).
struct CursorInBodyStrategy: PaginationStrategy {
    let options: PaginationScheme.CursorInBody

    var valuePaths: [JSONPath] { [options.cursorPath] }

    var followsUpstream: Bool { true }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue(options.pageSize.map(String.init), for: options.sizeParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        guard let cursor = page.values[options.cursorPath]?.nonEmptyString else { return .none }
        return .one(page.url.settingQueryValue(cursor, for: options.cursorParameter))
    }
}

extension PaginationScheme {
    /// The number of items the upstream says the walk has in all, read from its first page, when the route says
    /// where the upstream states it (a body path such as DRF's `count`, or a header such as `X-Total-Count`).
    ///
    /// A page count (`X-Total-Pages`, `rel="last"`) does not give an item count: the last page may be short.
    package func totalItems(on page: Page) -> Int? {
        switch self {
        case .pageNumber(let options):
            options.totalItemsPath.flatMap { page.values[$0]?.statedCount }
                ?? page.headers.statedCount(options.totalItemsHeader, at: options.totalItemsHeaderPath)
        case .offset(let options):
            options.totalItemsPath.flatMap { page.values[$0]?.statedCount }
                ?? page.headers.statedCount(options.totalItemsHeader, at: options.totalItemsHeaderPath)
        case .nextURLInBody(let options): options.totalItemsPath.flatMap { page.values[$0]?.statedCount }
        case .linkHeader, .nextPageHeader, .cursorInBody, .hasMore: nil
        }
    }
}

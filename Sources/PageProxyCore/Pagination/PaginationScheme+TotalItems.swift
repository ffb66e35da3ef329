extension PaginationScheme {
    /// The number of items the upstream says the walk has in all, read from its first page, when the route says
    /// where the upstream states it (a body path such as DRF's `count`, or a header such as `X-Total-Count`).
    ///
    /// A page count (`X-Total-Pages`, `rel="last"`) does not give an item count: the last page may be short. A count
    /// past `Int`'s range (saturated to `Int.max` for the walk's limits, `statedCount`) is no total to tell a client
    /// (review9: `PageProxy-Total: 9223372036854775807` for an upstream's `1e30`). Nor is one smaller than the
    /// items the page itself holds, which the answer would contradict (attack11 L2: `PageProxy-Total: 0` with 3
    /// items for `"total": -0`).
    package func totalItems(on page: Page) -> Int? {
        statedTotalItems(on: page).flatMap { $0 == .max || $0 < page.itemCount ? nil : $0 }
    }

    private func statedTotalItems(on page: Page) -> Int? {
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

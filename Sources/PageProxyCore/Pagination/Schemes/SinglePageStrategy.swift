/// A walk of one page: what `scheme: "auto"` does when the first page shows no way to a next one.
struct SinglePageStrategy: PaginationStrategy {
    var valuePaths: [JSONPath] { [] }

    func firstPage(from base: PageURL) -> PageURL { base }

    func next(after page: Page) throws(PaginationError) -> NextPages { .none }
}

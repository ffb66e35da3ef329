extension PaginationScheme {
    /// The options of ``PaginationScheme/nextPageHeader(_:)``: `X-Next-Page` and `X-Total-Pages` headers.
    ///
    /// The next-page header may name the next page by its number (GitLab) or by its URL (Kinto's `Next-Page`):
    /// a value that is not a whole number but an http(s) URL, a path or a query is followed as a next link.
    ///
    /// See <doc:NextPageHeaderScheme>.
    public struct NextPageHeader: Sendable, Equatable {
        /// The query parameter the next page's number is sent in.
        public var pageParameter: String
        /// The response header that gives the next page's number or URL; empty or absent on the last page.
        public var nextPageHeader: String
        /// With a JSON header, where it names the next page's number (flask-smorest's `X-Pagination` `next_page`:
        /// absent on the last page); nil: the whole header value is the number.
        public var nextPageHeaderPath: JSONPath? = nil
        /// The response header that gives the number of pages, so that all are fetched concurrently; `nil` for none.
        public var totalPagesHeader: String?
        /// With a JSON `totalPagesHeader`, where it states the page count (`X-Pagination` `total_pages`).
        public var totalPagesHeaderPath: JSONPath? = nil
        /// The page-size parameter; `nil` sends none.
        public var sizeParameter: String?
        /// The page size to ask for; `nil` leaves the upstream's default.
        public var pageSize: Int?

        /// Options; the defaults are GitLab's.
        public init(
            pageParameter: String = "page", nextPageHeader: String = "X-Next-Page", totalPagesHeader: String? = "X-Total-Pages",
            sizeParameter: String? = "per_page", pageSize: Int? = nil
        ) {
            self.pageParameter = pageParameter
            self.nextPageHeader = nextPageHeader
            self.totalPagesHeader = totalPagesHeader
            self.sizeParameter = sizeParameter
            self.pageSize = pageSize
        }
    }
}

extension PaginationScheme {
    /// The options of ``PaginationScheme/pageNumber(_:)``: `?page=N&per_page=M`.
    ///
    /// Without a total the walk goes page after page and stops at a short or empty page; with one (in the body or
    /// a header) every page is known after the first and fetched concurrently. See <doc:PageNumberScheme>.
    public struct PageNumber: Sendable, Equatable {
        /// The query parameter that numbers pages.
        public var pageParameter: String
        /// The number of the first page (1 for most APIs, 0 for some).
        public var firstPage: Int
        /// The page-size parameter; `nil` leaves the upstream's default page size.
        public var sizeParameter: String?
        /// The page size to ask for; `nil` asks for none and learns it from the first page.
        public var pageSize: Int?
        /// Where the body states the total number of items, if it does.
        public var totalItemsPath: JSONPath?
        /// Where the body states the total number of pages, if it does.
        public var totalPagesPath: JSONPath?
        /// A response header that states the total number of pages (GitLab's `X-Total-Pages`).
        public var totalPagesHeader: String?
        /// With `totalPagesHeader`, where the header's JSON states the page count (flask-smorest's `X-Pagination`
        /// `total_pages`); nil: the whole header value is the count.
        public var totalPagesHeaderPath: JSONPath? = nil
        /// A response header that states the total number of items (`X-Total-Count`, or a JSON header with a path).
        public var totalItemsHeader: String? = nil
        /// With `totalItemsHeader`, where the header's JSON states the item count (`X-Pagination` `total`).
        public var totalItemsHeaderPath: JSONPath? = nil
        /// With no total known, how many pages past the current one may be fetched speculatively.
        public var lookahead: Int
        /// With no total known, a page after the first answered with one of these statuses ends the walk (DRF and
        /// many Rails and Laravel APIs answer 404 "Invalid page." past the last page).
        public var endStatuses: Set<Int>
        /// Whether the stated total is an estimate (a search engine's: Elasticsearch's `hits.total.value`, a lower bound
        /// past `track_total_hits`): it still numbers the pages, but a later page stating another is no change of the
        /// list (`upstream_list_changed`). A total whose name says estimate (`estimatedTotalHits`) is one without this.
        public var totalIsEstimate = false

        /// Options; the defaults are GitLab's and most numbered APIs' (`page` from 1, `per_page`, no total).
        public init(
            pageParameter: String = "page", firstPage: Int = 1, sizeParameter: String? = "per_page", pageSize: Int? = nil,
            totalItemsPath: JSONPath? = nil, totalPagesPath: JSONPath? = nil, totalPagesHeader: String? = nil, lookahead: Int = 0,
            endStatuses: Set<Int> = [404]
        ) {
            self.pageParameter = pageParameter
            self.firstPage = firstPage
            self.sizeParameter = sizeParameter
            self.pageSize = pageSize
            self.totalItemsPath = totalItemsPath
            self.totalPagesPath = totalPagesPath
            self.totalPagesHeader = totalPagesHeader
            self.lookahead = lookahead
            self.endStatuses = endStatuses
        }

        /// Whether the route names no total of items or pages to read from a page: a window's page alone cannot tell
        /// the list's items from its last page answered again past the end (`ItemWindow.plan`).
        var namesNoTotal: Bool {
            totalItemsPath == nil && totalPagesPath == nil && totalItemsHeader == nil && totalPagesHeader == nil
        }
    }
}

extension PaginationScheme {
    /// The options of ``PaginationScheme/linkHeader(_:)``: RFC 8288 `Link: <…>; rel="next"`.
    ///
    /// The `next` link is followed; when the first page also has a `last` link that numbers its page, the pages
    /// between are built from it and fetched concurrently. See <doc:LinkHeaderScheme>.
    public struct LinkHeader: Sendable, Equatable {
        /// The query parameter that numbers pages in `next` and `last` links, used to fan out from `last`.
        public var pageParameter: String
        /// The page-size parameter; `nil` sends none.
        public var sizeParameter: String?
        /// The page size to ask for; `nil` leaves the upstream's default.
        public var pageSize: Int?
        /// Before the first page's `last` link is known, how many pages after it may be fetched speculatively by
        /// numbering them (`page=2`, `page=3` …): the first round then takes one latency, not two. Guesses the
        /// links turn out to match are kept; the rest are cancelled and cost an upstream request each.
        public var lookahead: Int

        /// Options; the defaults are GitHub's (`page`, `per_page`).
        public init(pageParameter: String = "page", sizeParameter: String? = "per_page", pageSize: Int? = nil, lookahead: Int = 0) {
            self.pageParameter = pageParameter
            self.sizeParameter = sizeParameter
            self.pageSize = pageSize
            self.lookahead = lookahead
        }
    }
}

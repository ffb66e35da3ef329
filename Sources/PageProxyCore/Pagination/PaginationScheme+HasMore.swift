extension PaginationScheme {
    /// The options of ``PaginationScheme/hasMore(_:)``: a `has_more` flag and the last item's id.
    ///
    /// See <doc:HasMoreScheme>.
    public struct HasMore: Sendable, Equatable {
        /// Where the body says whether more pages follow.
        public var hasMorePath: JSONPath
        /// The path of the id inside one item.
        public var idPath: JSONPath
        /// The query parameter the last item's id is sent in.
        public var afterParameter: String
        /// The page-size parameter; `nil` sends none.
        public var sizeParameter: String?
        /// The page size to ask for; `nil` leaves the upstream's default.
        public var pageSize: Int?

        /// Options; the defaults are Stripe's (`has_more`, `id`, `starting_after`, `limit`).
        public init(
            hasMorePath: JSONPath = JSONPath(components: [.key("has_more")]), idPath: JSONPath = JSONPath(components: [.key("id")]),
            afterParameter: String = "starting_after", sizeParameter: String? = "limit", pageSize: Int? = nil
        ) {
            self.hasMorePath = hasMorePath
            self.idPath = idPath
            self.afterParameter = afterParameter
            self.sizeParameter = sizeParameter
            self.pageSize = pageSize
        }
    }
}

extension PaginationScheme {
    /// The options of ``PaginationScheme/nextURLInBody(_:)``: an absolute or relative next URL in the body.
    ///
    /// See <doc:NextURLInBodyScheme>.
    public struct NextURLInBody: Sendable, Equatable {
        /// Where the body gives the next page's URL (DRF `next`, JSON:API `links.next`); `null` or absent ends the walk.
        public var nextPath: JSONPath
        /// Where the body states the total number of items (DRF's `count`, JSON:API's `meta.total`), if it does: when
        /// the next link numbers its pages, the remaining pages are fetched concurrently.
        public var totalItemsPath: JSONPath?
        /// Where the body states the total number of pages, if it does.
        public var totalPagesPath: JSONPath?
        /// Whether the stated total is an estimate (a search engine's: Elasticsearch's `hits.total.value`, a lower bound
        /// past `track_total_hits`): it still numbers the pages, but a later page stating another is no change of the
        /// list (`upstream_list_changed`). A total whose name says estimate (`estimatedTotalHits`) is one without this.
        public var totalIsEstimate = false
        /// Where the body says whether more pages follow (Zendesk's `meta.has_more`), if it does: `false` there ends the
        /// walk though the page still names a next link (Zendesk's last page does; real19 F3: one request more per walk).
        public var morePath: JSONPath?

        /// Options; the default is DRF's `next`.
        public init(
            nextPath: JSONPath = JSONPath(components: [.key("next")]), totalItemsPath: JSONPath? = nil, totalPagesPath: JSONPath? = nil
        ) {
            self.nextPath = nextPath
            self.totalItemsPath = totalItemsPath
            self.totalPagesPath = totalPagesPath
        }
    }
}

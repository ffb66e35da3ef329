extension PaginationScheme {
    /// The options of ``PaginationScheme/nextURLInBody(_:)``: an absolute or relative next URL in the body.
    ///
    /// See <doc:NextURLInBodyScheme>.
    public struct NextURLInBody: Sendable, Equatable {
        /// Where the body gives the next page's URL (DRF `next`, JSON:API `links.next`); `null` or absent ends the walk.
        public var nextPath: JSONPath

        /// Options; the default is DRF's `next`.
        public init(nextPath: JSONPath = JSONPath(components: [.key("next")])) {
            self.nextPath = nextPath
        }
    }
}

extension PaginationScheme {
    /// The options of ``PaginationScheme/cursorInBody(_:)``: an opaque cursor in the body, sent back as a parameter.
    ///
    /// See <doc:CursorInBodyScheme>.
    public struct CursorInBody: Sendable, Equatable {
        /// Where the body gives the next cursor; empty, `null` or absent ends the walk.
        public var cursorPath: JSONPath
        /// The query parameter the cursor is sent back in.
        public var cursorParameter: String
        /// The page-size parameter; `nil` sends none.
        public var sizeParameter: String?
        /// The page size to ask for; `nil` leaves the upstream's default.
        public var pageSize: Int?
        /// Where the body says whether more pages follow (Zendesk's `meta.has_more`, Notion's `has_more`), if it does:
        /// `false` there ends the walk though the page still names a cursor (real19 F3).
        public var morePath: JSONPath?
        /// Where the body gives an object whose every member is sent back as a query parameter of its own, in place of
        /// one cursor at `cursorPath` (MediaWiki's `continue`: `{"gapcontinue": "B", "clcontinue": "4|Gizmo",
        /// "continue": "gapcontinue||"}`, fix38). The members are set on the walk's first page's URL, so a member the
        /// page before named and this one does not is not sent again (MediaWiki's own rule: merge `continue` into the
        /// original request). A string or number member is sent as written; null, absent or `{}` ends the walk.
        public var cursorObjectPath: JSONPath?

        /// Options; the defaults are Slack's (`response_metadata.next_cursor`, `cursor`, `limit`).
        public init(
            cursorPath: JSONPath = JSONPath(components: [.key("response_metadata"), .key("next_cursor")]),
            cursorParameter: String = "cursor", sizeParameter: String? = "limit", pageSize: Int? = nil
        ) {
            self.cursorPath = cursorPath
            self.cursorParameter = cursorParameter
            self.sizeParameter = sizeParameter
            self.pageSize = pageSize
        }
    }
}

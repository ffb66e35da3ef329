/// What `SchemeDetector` learned from an upstream's first page: how to walk it, where its items are, its total.
package struct DetectedPagination: Sendable, Equatable {
    /// The scheme to walk with; nil when the page shows no way to a next page, so it is the whole answer.
    package var scheme: PaginationScheme?
    package var itemsPath: JSONPath
    /// How many items the first page holds.
    package var itemCount: Int
    /// The number of items the upstream says it has in all, if it says.
    package var total: Int?
    /// Where the total was found: a JSON path of the body or a response header.
    package var totalSource: String?
    /// What gave the scheme away, for people: `Link header rel="next"`, `body "links.next"`, ….
    package var evidence: String
    /// The next page as the first page names it (a URL, a cursor), if it names one.
    package var next: String?

    /// The detected scheme's `config.json` name, or `single-page`.
    package var schemeName: String { scheme?.name ?? "single-page" }

    /// The value of the `PageProxy-Scheme` response header of an auto route: `auto->link-header`.
    package var headerValue: String { "auto->" + schemeName }
}

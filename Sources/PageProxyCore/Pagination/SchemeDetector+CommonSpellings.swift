/// `scheme: "auto"` for the spellings of "more pages follow" that big APIs use beyond the first few (review17 B1,
/// attack14 M8): before, a page that said more in a way the detector did not know was answered as the whole list.
/// Those it can walk are learned here (OData's `@odata.nextLink`, Azure's `nextLink`, Salesforce's `nextRecordsUrl`,
/// Confluence's `_links.next`, AWS's `NextToken`; Spring Data's `Page`, Algolia's `nbPages`, Meilisearch's
/// `estimatedTotalHits`); the rest, when they say more, are a `pagination_not_detected` naming what was seen.
extension SchemeDetector {
    /// Items under names of their own: OData's (Microsoft Graph, Azure, SharePoint) and AWS's.
    static let commonItemsPaths: [JSONPath] = ["value", "Items"].map(path)

    /// Next links and cursors under names of their own; a key with a dot in it is one key (OData's).
    static let commonNextPaths: [(path: JSONPath, cursorParameter: String, isURLPath: Bool)] = [
        (key("@odata.nextLink"), "cursor", true), (key("odata.nextLink"), "cursor", true), (path("nextLink"), "cursor", true),
        (path("nextRecordsUrl"), "cursor", true), (path("_links.next"), "cursor", true),
        (path("NextToken"), "NextToken", false), (path("nextToken"), "nextToken", false),
    ]

    /// Totals under names of their own: Spring Data's `Page` (and its 3.3 `VIA_DTO` form), the Marvel API's envelope,
    /// Meilisearch, Algolia, Salesforce.
    static let commonTotalPaths: [JSONPath] = [
        "totalElements", "page.totalElements", "data.total", "estimatedTotalHits", "nbHits", "totalHits", "totalSize",
        "total_entries",
    ].map(path)

    /// Page numbers and page counts under names of their own (Spring's `number`, 0-based; Algolia's `nbPages`).
    static let commonPageNumberPaths: [JSONPath] = ["number", "page.number"].map(path)
    static let commonPageCountPaths: [JSONPath] = ["page.totalPages", "nbPages", "meta.total_pages", "meta.last_page", "pagination.total_pages"].map(path)

    /// Flags that say more pages follow when `false` (Spring's `last`, Jira's `isLastPage`, Salesforce's `done`) or
    /// when `true` (`hasNext` and its kin): read only to refuse, since none says how to get there.
    static let lastPageFlagPaths: [JSONPath] = [
        "last", "isLast", "isLastPage", "is_last", "done", "meta.isLastPage", "meta.is_last", "pagination.isLastPage", "pagination.is_last",
    ].map(path)
    static let moreFlagPaths: [JSONPath] = [
        "hasNext", "has_next", "hasMore", "more", "hasNextPage", "has_next_page", "pageInfo.hasNextPage", "meta.has_more",
        "pagination.has_more", "pagination.has_next",
        // The same inside the objects APIs keep their paging in (retest14 N3: `{"meta":{"hasMore":true}}` was page 1).
        "meta.hasMore", "meta.hasNext", "meta.has_next", "meta.hasNextPage", "pagination.hasMore", "pagination.hasNext",
        "pagination.hasNextPage", "paging.hasMore", "paging.has_more", "paging.hasNext", "page_info.has_next_page",
    ].map(path)

    /// Why a page with no scheme found says, in one of these spellings, that more pages follow; nil when none does.
    static func moreSpelled(_ values: [JSONPath: JSONValue]) -> String? {
        if let flag = lastPageFlagPaths.first(where: { values[$0] == .bool(false) }) {
            return "the first page's \"\(flag)\" is false (more pages follow), but the page shows no way to the next one"
        }
        if let flag = moreFlagPaths.first(where: { values[$0]?.flag == true }) {
            return "the first page's \"\(flag)\" is true (more pages follow), but the page shows no way to the next one"
        }
        let page = (pageNumberPaths + commonPageNumberPaths).lazy.compactMap { values[$0]?.integer }.first
        for path in pageCountPaths + commonPageCountPaths {
            guard let pages = values[path]?.statedCount, pages > 1 else { continue }
            // A page that numbers itself the last (1-based) says nothing more follows.
            if let page, page >= pages { continue }
            return "the first page's \"\(path)\" says there are \(pages) pages, but the page shows no way to the next one"
        }
        return nil
    }

    /// A path of one key, dots and all.
    static func key(_ name: String) -> JSONPath {
        JSONPath(components: [.key(name)])
    }
}

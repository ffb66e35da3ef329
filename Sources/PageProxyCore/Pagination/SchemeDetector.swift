/// Tells from an upstream's first page how it paginates (`scheme: "auto"`, `PageProxy probe`), as dlt's REST
/// client does: the scheme, where the items are, and the total.
///
/// In this order, the first that fits wins: a `Link` header with a pagination relation → `link-header`; an
/// `X-Next-Page` header, or a `Next-Page` header holding a URL (Kinto) → `next-page-header`; a JSON `X-Pagination` header (flask-smorest, ASP.NET) with a page
/// count or total → `page-number`, with only a next page → `next-page-header`; a next link or cursor at a common path of the body (`next`,
/// `links.next`, `_links.next.href`, `next_cursor`, `response_metadata.next_cursor`, …; a value that looks like a
/// URL is followed as one, anything else is sent back as a cursor) → `next-url` or `cursor`; `has_more` →
/// `has-more`; a page number with a page count in the body (`page` and `pages`) → `page-number`; an offset and a
/// limit with a total (`offset`, `limit`, `total`) → `offset`. A total larger than the page with none of these:
/// the numbering the first page's URL names (`?limit=` → `offset`, `?page=`/`?page_size=` → `page-number`,
/// django-ninja), else an error rather than a silent partial answer; so too a page that says more follow in a way
/// no scheme here walks (`moreSignalled`). Nothing at all: the page is the whole answer.
/// The items are the root array, or the first array of objects at a common key (`results`, `data`, `items`, …),
/// or else the only array of objects among the top-level members.
package enum SchemeDetector {
    /// Keys where APIs put their items, in the order they are tried.
    static let itemsPaths: [JSONPath] = [
        "results", "data", "items", "members", "records", "entries", "values", "objects", "rows", "list",
        "elements", "nodes", "hits", "content", "collection", "data.items", "data.results", "data.children",
        // Roundup's REST API.
        "data.collection",
        // Eve's HATEOAS envelope.
        "_items",
        // matrix-synapse's admin lists: `{"users": [], "total": 0}` is a list of no items, not a page auto cannot read.
        "users",
    ].map(path) + commonItemsPaths

    /// Where a next page is named, in the order tried: each with the query parameter a cursor found there is sent
    /// back as, and whether a null there ends a walk of next URLs (`true`) or of cursors.
    static let nextPaths: [(path: JSONPath, cursorParameter: String, isURLPath: Bool)] = [
        ("next", "cursor", true), ("next_url", "cursor", true), ("links.next", "cursor", true), ("links.next.href", "cursor", true),
        ("_links.next.href", "cursor", true), ("pagination.next", "cursor", true), ("meta.next", "cursor", true),
        ("paging.next", "cursor", true), ("next_page_url", "cursor", true), ("pagination.next_url", "cursor", true),
        ("next_page", "cursor", false), ("next_cursor", "cursor", false),
        ("response_metadata.next_cursor", "cursor", false), ("cursor.next", "cursor", false),
        ("meta.next_cursor", "cursor", false), ("pagination.next_cursor", "cursor", false),
        // Google APIs and Twitter v2 name the parameter differently from the body's key.
        ("nextPageToken", "pageToken", false), ("next_page_token", "page_token", false),
        ("meta.next_token", "pagination_token", false),
        // matrix-synapse's admin lists (`/_synapse/admin/v2/users?from=0&limit=100`): the next offset as a string token,
        // sent back as `from` (real14: auto read `?limit=` as an offset walk by `offset`, which Synapse ignores).
        ("next_token", "from", false),
        // Litestar's CursorPagination: the next page's cursor at the root, null on the last page.
        ("cursor", "cursor", false),
        // Reddit's listings, `{"kind": "Listing", "data": {"after": "t3_x", "children": […]}}`, sent back as `?after=`
        // (real19 F1: answered as the whole list, 100 of 1,001, with a 200).
        ("data.after", "after", false),
    ].map { (path($0.0), $0.1, $0.2) } + roundupNextPaths + nextLinkObjectPaths + commonNextPaths

    /// Roundup's REST API: the next link inside an array of `{rel, uri}` under `next`, its first element (real20 F1:
    /// answered as the whole list, 100 of 1,000, with a 200). Parsed, so that `0` is an index.
    static let roundupNextPaths: [(path: JSONPath, cursorParameter: String, isURLPath: Bool)] = ["data.@links.next.0.uri", "@links.next.0.uri"]
        .compactMap { JSONPath($0) }.map { ($0, "cursor", true) }

    /// A next link written inside an object at a next-link path (`"next": {"href": "…"}`, `{"url": "…"}`): followed as
    /// `_links.next.href` is (attack7: such a page was answered as the whole list).
    static let nextLinkObjectPaths: [(path: JSONPath, cursorParameter: String, isURLPath: Bool)] =
        // JupyterHub's `"_pagination": {"next": {"offset", "limit", "url"}}` (real13: its first page was the answer).
        ["next", "pagination.next", "meta.next", "paging.next", "_pagination.next"].flatMap { parent in
            ["href", "url"].map { (path(parent + "." + $0), "cursor", true) }
        }

    /// Where APIs state their total number of items.
    static let totalPaths: [JSONPath] = [
        "count", "total", "total_count", "totalCount", "total_items", "totalItems", "total_results", "totalResults",
        "meta.total", "meta.count", "meta.total_count", "meta.pagination.count", "meta.pagination.total",
        "pagination.total", "pagination.count", "_meta.total", "_pagination.total",
        // Mailman 3's REST API.
        "total_size",
        // The DataTables server-side protocol (djangorestframework-datatables): the count of the list the request walks,
        // after its search (`recordsTotal` is before it). Real15: its `{"recordsTotal", "recordsFiltered", "data",
        // "draw"}` was answered as one page of 100 of 1,000 items under a 200.
        "recordsFiltered",
        // Roundup's REST API (real20 F1).
        "data.@total_size",
    ].map(path) + commonTotalPaths
    static let totalHeaders = ["X-Total-Count", "X-Total", "X-WP-Total", "Total-Count", "X-Count-Total", ContentRange.headerName]
    /// The header that names the next page by its URL (Kinto).
    static let nextPageURLHeader = "Next-Page"
    /// Headers that state a page count (WordPress, Kaminari-style APIs): more than one with no way on is not one page.
    static let pageCountHeaders = ["X-Total-Pages", "X-WP-TotalPages", "X-Page-Count"]

    static let pageNumberPaths: [JSONPath] = ["page", "current_page"].map(path) + commonPageNumberPaths
    static let pageCountPaths: [JSONPath] = ["pages", "total_pages", "totalPages", "last_page", "page_count"].map(path) + commonPageCountPaths
    static let hasMorePath = path("has_more")
    /// MediaWiki's continuation: a root object whose every member is sent back (`CursorInBody.cursorObjectPath`).
    static let continueObjectPath = path("continue")
    static let batchCompletePath = path("batchcomplete")
    static let offsetPath = path("offset")
    static let limitPath = path("limit")

    /// Every way on that `detectScheme` reads, as the `notDetected` messages name them (one list for both, from the
    /// names it reads: loose12, Kinto's `Next-Page` was missing from the message).
    package static let signalsLookedFor: String = {
        let headers = ["Link", PaginationScheme.NextPageHeader().nextPageHeader, "\(nextPageURLHeader) (a URL)"]
            + paginationHeaders.map { "\($0) (JSON)" }
        let paths = nextPaths.prefix(3).map { "\"\($0.path)\"" }.joined(separator: ", ")
        return "no \(headers.dropLast().joined(separator: ", ")) or \(headers.last ?? "") header, and no next link or cursor "
            + "(\(paths), …), \"\(hasMorePath)\", page number with a page count (\"\(pageNumberPaths[0])\" and \"\(pageCountPaths[0])\", …), "
            + "or offset and limit with a total (\"\(offsetPath)\", \"\(limitPath)\", \"\(totalPaths[0])\", …) in the body"
    }()

    /// Detects how the upstream that answered `response` for `url` paginates.
    /// - Parameter itemsPath: the route's items path, when it names one; otherwise the items are detected too.
    /// - Throws: `.invalidJSON` for a body that is not JSON, `.notDetected` when the items cannot be found or the
    ///   page states a larger total with no way to the next page.
    package static func detect(
        _ response: UpstreamResponse, url: PageURL, itemsPath: JSONPath? = nil
    ) throws(PaginationError) -> DetectedPagination {
        let body = response.body
        let candidates = itemsPaths + nextPaths.map(\.path) + totalPaths + pageNumberPaths + pageCountPaths
            + [hasMorePath, offsetPath, limitPath, .root] + lastPageFlagPaths + moreFlagPaths + wayOnPaths + morePaths
            + [notionEnvelopePath, continueObjectPath, batchCompletePath, path("query")]
        let values: [JSONPath: JSONValue]
        do {
            values = try JSONScanner().values(in: body, at: candidates + [itemsPath, urlNamedItemsPath(url)].compactMap { $0 })
        } catch {
            throw .invalidJSON(page: 1, url: url, error: error)
        }
        // A GraphQL Relay connection (real16): walked only by a route's `queryEncoding`; one that ends here is the answer.
        if case .object? = values[path("data")], let relay = relayConnection(in: body) {
            guard relay.hasNextPage == false else { throw .notDetected(url: url, reason: relayRefusal(relay, url: url)) }
            if itemsPath == nil {
                let edges = JSONPath(components: relay.path.components + [.key("edges")])
                return DetectedPagination(
                    scheme: nil, itemsPath: edges, itemCount: relay.edgeCount,
                    evidence: "GraphQL Relay connection, \"\(relay.path).pageInfo.hasNextPage\" false")
            }
        }
        let (items, count): (JSONPath, Int)
        do {
            (items, count) = try findItems(values, body: body, url: url, configured: itemsPath)
        } catch {
            // Flask-AppBuilder's page (real16): its `ids` and column lists beside `result` are refused here, before its
            // total is read; the refusal names the `queryEncoding` route too where the URL numbers pages inside `q`.
            let total = totalPaths.first { values[$0]?.statedCount != nil }?.description
            guard case .notDetected(let url, let reason) = error, let hint = encodedNumberingHint(url, totalPath: total) else { throw error }
            throw .notDetected(url: url, reason: reason + "; " + hint)
        }
        var detected = DetectedPagination(scheme: nil, itemsPath: items, itemCount: count, evidence: "no next page")
        let header = paginationHeader(response.headers)
        var source: TotalSource?
        // The largest stated: a page's own `count` beside the list's `totalCount` is never above it (review17 B1).
        if let (path, total) = totalPaths.compactMap({ path in values[path]?.statedCount.map { (path, $0) } }).max(by: { $0.1 < $1.1 }) {
            (detected.total, detected.totalSource, source) = (total, path.description, .body(path))
        } else if let name = totalHeaders.first(where: { response.headers.statedCount($0) != nil }) {
            (detected.total, detected.totalSource, source) = (response.headers.statedCount(name), "\(name) header", .header(name, nil))
        } else if let header, let (path, total) = header.total {
            (detected.total, detected.totalSource, source) = (total, "\(header.name) header \"\(path)\"", .header(header.name, path))
        }
        if let total = detected.total, total < count {
            // A total the first page already exceeds is none to state (attack11 L2, as `PaginationScheme.totalItems`
            // says); where it was found still tells the scheme (an offset body's total path).
            detected.total = nil
        }
        detectScheme(response, url: url, values: values, header: header, into: &detected)
        if case .nextURLInBody(let options)? = detected.scheme { try refuseAmbiguousNextLink(values, following: options.nextPath, url: url) }
        if let reason = moreDespiteNoWayOn(values, detected: detected) {
            throw .notDetected(url: url, reason: reason + "; name the route's scheme in its pagination")
        }
        if detected.scheme == nil, let total = detected.total, total > count, let source,
            let (scheme, evidence) = schemeFromQuery(url, itemCount: count, total: source)
        {
            (detected.scheme, detected.evidence) = (scheme, evidence)
        }
        if detected.scheme == nil,
            let (name, pages) = pageCountHeaders.lazy.compactMap({ name in response.headers.statedCount(name).map { (name, $0) } }).first,
            pages > 1
        {
            // attack7 F4: such a page was answered as the whole list, with a 200.
            throw .notDetected(
                url: url,
                reason: "the first page's \(name) header says there are \(pages) pages, but the page shows no way to the next one: "
                    + "\(signalsLookedFor); name the route's scheme in its pagination")
        }
        if detected.scheme == nil,
            let reason = moreSignalled(response.headers, values: values, header: header, body: body) ?? moreSpelled(values)
                ?? wayOnBesideItems(values, items: detected.itemsPath)
        {
            throw .notDetected(url: url, reason: reason + "; name the route's scheme in its pagination")
        }
        if detected.scheme == nil, let total = detected.total, total > count {
            let stated = "the first page holds \(count) items of the \(total) it states (\(detected.totalSource ?? ""))"
            if let hint = encodedNumberingHint(url, totalPath: bodyTotalPath(detected)?.description) {
                throw .notDetected(url: url, reason: stated + ", and " + hint)
            }
            throw .notDetected(
                url: url,
                reason: stated + ", but shows no way to the next page: \(signalsLookedFor); name the route's scheme in its pagination")
        }
        return detected
    }

    private static func detectScheme(
        _ response: UpstreamResponse, url: PageURL, values: [JSONPath: JSONValue], header: PaginationHeader?,
        into detected: inout DetectedPagination
    ) {
        // RFC 8288 §3.2: a link anchored at another URL is another resource's (attack22 item 1).
        let links = LinkHeaderParser.parse(response.headers).filter { $0.isAbout(url) }
        // Only `next` or `last` says where the pages ahead are; a `Link` of `first` or `prev` alone gives way to the
        // body's own next link (attack14 L1), and is walked only when nothing else is found (`linkHeaderLast`).
        if links.contains(where: { $0.relations.contains("next") || $0.relations.contains("last") }) {
            detected.scheme = .linkHeader(PaginationScheme.LinkHeader())
            detected.evidence = "Link header"
            detected.next = links.first { $0.relations.contains("next") }?.target
            return
        }
        if let next = response.headers[PaginationScheme.NextPageHeader().nextPageHeader] {
            detected.scheme = .nextPageHeader(PaginationScheme.NextPageHeader())
            detected.evidence = "X-Next-Page header"
            detected.next = next.isEmpty ? nil : next
            return
        }
        // Kinto: the next page's URL in `Next-Page` (absent on the last page; a value that is no URL is not this habit).
        if let next = response.headers[nextPageURLHeader], looksLikeURL(next) {
            detected.scheme = .nextPageHeader(PaginationScheme.NextPageHeader(nextPageHeader: nextPageURLHeader, totalPagesHeader: nil))
            detected.evidence = "\(nextPageURLHeader) header (a URL)"
            detected.next = next
            return
        }
        if let header {
            (detected.scheme, detected.evidence) = scheme(for: header, url: url)
            detected.next = header.nextPage?.value
            return
        }
        // MediaWiki (real20 F1, F2): `{"continue": {"apcontinue": "B", "continue": "-||"}}`, every member sent back.
        if case .object(let range)? = values[continueObjectPath],
            case .success(let members) = CursorInBodyStrategy.members(of: Array(response.body[range]))
        {
            var options = PaginationScheme.CursorInBody()
            options.cursorObjectPath = continueObjectPath
            options.sizeParameter = nil
            detected.scheme = .cursorInBody(options)
            detected.evidence = "body \"\(continueObjectPath)\" (an object: each member sent back)"
            detected.next = members.isEmpty ? nil : members.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
            return
        }
        if let found = nextLinkOrCursor(values) {
            detected.evidence = "body \"\(found.path)\""
            detected.next = found.value
            if found.isURL {
                var options = PaginationScheme.NextURLInBody()
                options.nextPath = found.path
                // The body's total: pages the next link numbers (page=2, offset=100) go concurrently (Tastypie, Eve),
                // once the numbering cannot be something else (review10: a keyset `after_id=57` read as a step of 57
                // would skip or repeat items, with no error).
                if isPlainNumbering(from: url, to: found.value, itemCount: detected.itemCount, total: detected.total) {
                    options.totalItemsPath = bodyTotalPath(detected)
                }
                options.morePath = morePath(values)
                detected.scheme = .nextURLInBody(options)
            } else {
                var options = PaginationScheme.CursorInBody()
                options.cursorPath = found.path
                options.cursorParameter = cursorParameter(at: found.path, listed: found.parameter, values)
                options.morePath = morePath(values)
                detected.scheme = .cursorInBody(options)
            }
            return
        }
        if let more = values[hasMorePath]?.flag {
            let options = PaginationScheme.HasMore()
            detected.scheme = .hasMore(options)
            detected.evidence = "body \"has_more\""
            // What the walk sends next (probe's "next"): the last item's id. Without it, a first page of localstripe's
            // that said has_more: true was shown as "next none on this page" (real12).
            if more, case .array(let range, let count)? = values[detected.itemsPath], count > 0 {
                let lastID = JSONPath(components: [.index(count - 1)] + options.idPath.components)
                switch try? JSONScanner().value(in: response.body, range: range, at: lastID) {
                case .string(let id)?, .number(let id)?: detected.next = "\(options.afterParameter)=\(id)"
                default: break
                }
            }
            return
        }
        if let number = pageNumberPaths.first(where: { values[$0]?.integer != nil }),
            let pages = pageCountPaths.first(where: { values[$0]?.statedCount != nil })
        {
            var options = PaginationScheme.PageNumber()
            // Litestar's ClassicPagination: the body's "current_page" is also the query parameter the URL names.
            if url.queryValue(number.description) != nil {
                options.pageParameter = number.description
            } else if let named = pageParameters.first(where: { url.queryValue($0) != nil }) {
                options.pageParameter = named
            } else {
                // attack14 H3: the URL names none; the body's own name for it implies one (Litestar's `current_page`).
                options.pageParameter = pageParameterOfCurrentPageKey.first { key($0.key) == number }?.parameter ?? "page"
            }
            if url.queryValue(options.pageParameter) == nil, values[number]?.integer == 0 {
                // review17 B2: a first page that says it is page 0 numbers from 0 (Spring's `number`, Algolia's `page`).
                options.firstPage = 0
            }
            options.totalPagesPath = pages
            detected.scheme = .pageNumber(options)
            detected.evidence = "body page number and \"\(pages)\""
            return
        }
        defer { linkHeaderLast(links, into: &detected) }
        if values[offsetPath]?.integer != nil, let limit = values[limitPath]?.integer, limit > 0, let totalPath = bodyTotalPath(detected) {
            var options = PaginationScheme.Offset()
            options.limit = limit
            options.totalItemsPath = totalPath
            detected.scheme = .offset(options)
            detected.evidence = "body \"offset\", \"limit\" and \"\(totalPath)\""
        }
    }

    /// The body path the detected total was read at, when it came from the body rather than a header.
    /// Whether the first page's next link numbers pages plainly (`PageNumbering.isPlain`), with a total no smaller than
    /// the page; or there is no link.
    private static func isPlainNumbering(from url: PageURL, to link: String?, itemCount: Int, total: Int?) -> Bool {
        // A last page's null link: nothing to number, and nothing the total can make the walk fetch.
        guard let link else { return true }
        guard let total, total >= itemCount, let next = url.resolving(link),
            let numbering = PageNumbering(from: url, to: next, itemCount: itemCount)
        else { return false }
        return numbering.isPlain(itemCount: itemCount, next: next)
    }

    private static func bodyTotalPath(_ detected: DetectedPagination) -> JSONPath? {
        detected.totalSource.flatMap { JSONPath($0) }.flatMap { totalPaths.contains($0) ? $0 : nil }
    }

    private static func findItems(
        _ values: [JSONPath: JSONValue], body: [UInt8], url: PageURL, configured: JSONPath?
    ) throws(PaginationError) -> (JSONPath, Int) {
        if let configured {
            guard case .array(_, let count) = values[configured] else {
                throw .notDetected(url: url, reason: "the route's items path \"\(configured)\" holds no array on the first page")
            }
            return (configured, count)
        }
        switch values[.root] {
        case .array(_, let count)?: return (.root, count)
        case .object?: break
        default: throw .notDetected(url: url, reason: "the first page is a JSON scalar, not an object or an array of items")
        }
        if let named = urlNamedItems(values, body: body, url: url) { return named }
        if let module = mediaWikiModule(values, body: body) { return module }
        var firstEmpty: (JSONPath, Int)?
        var firstRows: (JSONPath, Int)?
        var firstScalars: (JSONPath, Int)?
        for path in itemsPaths {
            guard case .array(let range, let count) = values[path] else { continue }
            if count == 0 {
                firstEmpty = firstEmpty ?? (path, 0)
                continue
            }
            switch try? JSONScanner().value(in: body, range: range, at: JSONPath(components: [.index(0)])) {
            case .object?:
                try refuseSideLoaded(path, body: body, url: url)
                return (path, count)
            // Rows as arrays of values (Datasette's default `"rows": [[1, "a"], …]` beside `"columns"`): the items,
            // rather than some other array of objects in the page (Datasette's `suggested_facets`).
            case .array?: firstRows = firstRows ?? (path, count)
            // Ids, tags, suggestions: items are any JSON values, and a listed key that holds them wins over another
            // member's array of objects (attack14 M7: the page's facets or links were answered as the items).
            default: firstScalars = firstScalars ?? (path, count)
            }
        }
        if let found = firstRows ?? firstScalars ?? firstEmpty { return found }
        // `{}`: protobuf's JSON mapping leaves an empty repeated field out, so MLflow answers a search that matches
        // nothing so, as Google-style APIs answer an empty list: a list of no items (loose13: a 502 asking for the
        // route's "items", on a route whose searches that match something work). A body with no member hides
        // nothing; the walk reads the path it lacks as no items (`OmittedItems`).
        // Likewise a page of scalars that states a total of 0, or a start past its total (Mailman 3 leaves `entries`
        // out of an empty list's page: real13's 502 for an empty list).
        if isEmptyObject(body) || OmittedItems.statesNoItems(in: body) { return (itemsPaths[0], 0) }
        let members = JSONMembers.of(body) ?? []
        if let found = onlyArrayOfObjects(members, in: body) {
            let others = otherArraysOfValues(members, besides: found.0, in: body)
            guard others.isEmpty else {
                throw .notDetected(
                    url: url,
                    reason: "the first page holds an array of objects at \"\(found.0)\" and an array of values at "
                        + others.map { "\"\($0)\"" }.joined(separator: ", ") + ": either may be the items; "
                        + "set the route's \"items\" to the key that holds them (\"items\": \"\(found.0)\" if the objects are)")
            }
            return found
        }
        if let found = onlyEmptyArray(members, in: body) { return found }
        let keys = members.map(\.key).sorted().prefix(30).map { "\"\($0)\"" }.joined(separator: ", ")
        throw .notDetected(
            url: url,
            reason: "no items array found on the first page (keys seen: \(keys.isEmpty ? "none" : keys)); "
                + "set the route's \"items\" to the key that holds them")
    }

    /// MediaWiki's items: the one array of `query` (`query.allpages`, `query.pages`) on a page that continues by a
    /// `continue` object (or has ended, `batchcomplete`); nil on any other page.
    private static func mediaWikiModule(_ values: [JSONPath: JSONValue], body: [UInt8]) -> (JSONPath, Int)? {
        guard values[continueObjectPath] != nil || values[batchCompletePath] != nil, case .object(let range)? = values[path("query")],
            let members = JSONMembers.of(Array(body[range])), case let arrays = members.filter({ $0.kind == .array }), arrays.count == 1
        else { return nil }
        let items = JSONPath(components: [.key("query"), .key(arrays[0].key)])
        guard case .array(_, let count)? = try? JSONScanner().value(in: body, range: range, at: JSONPath(components: [.key(arrays[0].key)])) else {
            return nil
        }
        return (items, count)
    }

    /// Whether `body` is an object with no members, `{}` (whitespace and a UTF-8 BOM aside).
    private static func isEmptyObject(_ body: [UInt8]) -> Bool {
        let text = body.starts(with: [0xEF, 0xBB, 0xBF]) ? body.dropFirst(3) : body[...]
        let whitespace: [UInt8] = [0x20, 0x09, 0x0A, 0x0D]
        return text.lazy.filter { !whitespace.contains($0) }.elementsEqual([UInt8(ascii: "{"), UInt8(ascii: "}")])
    }

    static func path(_ dotted: String) -> JSONPath {
        JSONPath(components: dotted.split(separator: ".").map { .key(String($0)) })
    }
}

import Foundation
import PageProxyCore

/// The imitated services, one route each (`/<rawValue>/items`), and how each reads its
/// pagination parameters.
package enum MockService: String, Sendable, CaseIterable {
    case plain
    case wrapped
    case github
    case gitlab
    case drf
    case drfPages = "drf-pages"
    case jsonapi
    case slack
    case stripe
    case offset
    /// flask-smorest's `@blp.paginate()` on Werkzeug: a bare array, the pagination as JSON in `X-Pagination`.
    case smorest
    /// django-ninja's `LimitOffsetPagination`: `{"items": [...], "count": N}`, JSON written by Python's `json`.
    case ninja
    /// Litestar's `ClassicPagination`: `{"items","page_size","current_page","total_pages"}`; as in its docs, the
    /// handler's `page_size` and `current_page` have no defaults, so a request must name both.
    case litestar
    /// Eve: `{"_items", "_links": {"next": {"href": "items?page=2"}}, "_meta": {"total"}}`, `?page=&max_results=`.
    case eve
    /// django-tastypie: `{"meta": {"next": "/tastypie/items/?limit=10&offset=10", "total_count"}, "objects"}`;
    /// `?limit=0` is "all" (up to the largest page).
    case tastypie
    /// Datasette's table JSON: keyset pages (`?_next=<last id>`, `?_size=`, `_size=max`), `next_url` and a `Link`
    /// header; rows as arrays, `?_shape=objects` or a bare array with `?_shape=array`.
    case datasette
    /// Kinto: `{"data": [...]}`, the next page's absolute URL only in a `Next-Page` header (`_limit`, an opaque
    /// `_token` with a fresh nonce each time); no total on a GET; `Cache-Control: no-cache, no-store`.
    case kinto
    /// drf-link-header-pagination's `LinkHeaderPagination`: a bare array, RFC 8288 `Link` with prev, next, first, last.
    case drfLink = "drf-link"
    /// drf-link-header-pagination's `LinkHeaderLimitOffsetPagination`: the same with `?limit=&offset=` links; `first`
    /// on every page, `last` (at the last page's offset) only before the last page.
    case drfLinkOffset = "drf-link-offset"
    /// Wagtail's API v2: `{"meta": {"total_count": N}, "items": [...]}`, `?offset=&limit=`, no link; a limit above
    /// the maximum is refused with a 400, not capped.
    case wagtail
    /// MLflow's tracking server (`experiments/search`): `?max_results=&page_token=`, the body's `next_page_token`
    /// (base64 of `{"offset": N}`) absent on the last page, `{}` for no items (protobuf JSON); `max_results` required.
    case mlflow
    /// Mastodon's timelines: a bare array, `Link` next/prev by `max_id`/`min_id` (the page's own last and first ids);
    /// a full page always links on, so a full last page is followed by `[]`; `private, no-store`.
    case mastodon
    /// localstripe: Stripe's list with sorted keys (`has_more` after `data`) and `total_count`; an unknown
    /// `starting_after` starts again at the beginning (real Stripe refuses it, as `stripe` here does).
    case localstripe
    /// JupyterHub's REST API: with `Accept: application/jupyterhub-pagination+json`, `{"items": [...], "_pagination":
    /// {"offset", "limit", "total", "next": {"offset", "limit", "url"} or null}}`, else a bare array of the largest page;
    /// `?offset=&limit=`, a limit above the largest page read as the largest without a word.
    case jupyterhub
    /// Piccolo API's PiccoloCRUD: `{"rows": [...]}` and nothing else (no link, no count), `?__page=&__page_size=`, a
    /// size above the largest a 403; `?__range_header=true` adds `Content-Range: items 0-9/N`.
    case piccolo
    /// Mailman 3 core's REST API: `{"entries": [...], "http_etag", "start", "total_size"}` with sorted keys, `?count=&page=`
    /// (both, or neither for everything), no link; a page past the end leaves `entries` out.
    case mailman
    /// Flask-AppBuilder's `ModelRestApi`: `{"count": N, …, "ids": [...], …, "result": [...]}`, no link; the page and
    /// its size only inside a Rison `q` (`?q=(page:0,page_size:25)`, pages from 0, a size above the largest read as
    /// the largest), so `?page=2` is the first page again.
    case fab
    /// SAFRS (JSON:API): `?page[offset]=&page[limit]=`, `links` with `first`/`last`/`prev`/`next`/`self` as SAFRS
    /// computes them: no `next` on the page before the one `last` names.
    case safrs
    /// matrix-synapse's admin lists (`/_synapse/admin/v2/users`): `?from=&limit=`, `{"users": [...], "total": N,
    /// "next_token": "20"}`, the token (the next offset as a string) absent on the last page; `offset` is not read.
    case synapse
    /// graphene-django's Relay connection over GET: `{"data": {"things": {"totalCount", "edges": [{"node"}], "pageInfo":
    /// {"hasNextPage", "endCursor"}}}}`, `first` and `after` only inside the JSON of `variables`.
    case graphene
    /// djangorestframework-datatables: `{"recordsTotal", "recordsFiltered", "data", "draw"}`, `?start=&length=`.
    case datatables
    /// Strawberry's Relay `ListConnection` over GET: graphene's without `totalCount`; its error in a 200 has `data: null`.
    case strawberry
    /// Apache Airflow's REST API v2: `{"variables": [...], "total_entries": N}`, `?limit=&offset=`, a limit above the
    /// largest page read as the largest without a word, none the default page.
    case airflow
    /// Spring Data's `Page` as Spring Boot writes it: `{"content", "totalElements", "totalPages", "number", "last", …}`,
    /// `?page=` numbered from 0, `?size=`.
    case spring
    /// Microsoft Graph (OData v4): `{"value": […], "@odata.nextLink": "…&$skiptoken=N"}`, `?$top=`.
    case graph
    /// ASP.NET Core's common paging: a bare array, `X-Pagination` JSON, `?pageNumber=&pageSize=` (no `page`).
    case aspnet
    /// A search whose items are strings beside `"facets": [{…}]`, a next link by `?page=`, `?per_page=`.
    case facets
    /// Reddit's listings: `{"kind": "Listing", "data": {"after": "t3_<id>" or null, "children": [...]}}`, `?after=&limit=`.
    case reddit
    /// Zendesk's cursor lists with side-loaded `actors` and `users` beside `activities`, at `/zendesk/activities.json`;
    /// the last page names a next link beside `meta.has_more: false`. `?page[size]=&page[after]=`.
    case zendesk
    /// Notion's `{"object": "list", "results", "next_cursor", "has_more"}`, the cursor sent back as `start_cursor`.
    case notion
    /// MediaWiki's Action API (`action=query`): a root `continue` object whose every member is sent back, a list module's
    /// `apcontinue`, or a generator's `gapcontinue` beside a prop module's `clcontinue` (fix38).
    case mediawiki
    /// Roundup's REST API: `data.collection`, the next link in an array at `data.@links.next`, `@page_size`/`@page_index`,
    /// `data.@total_size` and `X-Count-Total` (fix38).
    case roundup

    /// The route's path, e.g. "/github/items"; Django's routes end with a slash (its `APPEND_SLASH` redirects the
    /// form without one).
    package var path: String {
        switch self {
        case .drf, .drfPages, .tastypie, .drfLink, .drfLinkOffset, .wagtail: "/\(rawValue)/items/"
        // Zendesk's list is named by its URL (`/api/v2/activities.json`), beside the arrays it side-loads.
        case .zendesk: "/zendesk/activities.json"
        default: "/\(rawValue)/items"
        }
    }

    /// Where GitHub's links point: `/repos/o/r/issues` is answered with links to `/repositories/<id>/issues`, and
    /// both paths serve the same data.
    package static let githubLinkPath = "/repositories/1/items"

    /// The service routed at `path`, if any.
    package init?(path: String) {
        if path == Self.githubLinkPath {
            self = .github
            return
        }
        guard let service = Self.allCases.first(where: { $0.path == path }) else { return nil }
        self = service
    }

    /// The service whose path is `path` with a slash appended: Django answers such a request with a redirect.
    package static func appendingSlash(to path: String) -> MockService? {
        allCases.first { $0.path.hasSuffix("/") && $0.path == path + "/" }
    }

    /// The outcome of reading a request's pagination parameters.
    package enum Parsed: Sendable {
        case window(MockWindow)
        /// The service answers this instead (bad parameter, unknown cursor…).
        case reply(MockResponse)
    }

    /// Reads the request's pagination parameters the way the service does.
    package func window(in context: MockContext) -> Parsed {
        let total = context.total
        switch self {
        case .plain, .wrapped, .github, .gitlab:
            return pageWindow(context, page: "page", size: "per_page")
        case .jsonapi:
            return pageWindow(context, page: "page[number]", size: "page[size]")
        case .drfPages:
            guard let size = context.pageSize("page_size") else { return bad(context, "page_size") }
            let pageText = context.query.value("page")
            let lastPage = MockWindow(page: 1, size: size, total: total).pageCount
            let page = pageText == "last" ? lastPage : context.pageNumber("page")
            guard let page else { return bad(context, "page") }
            guard page <= lastPage else { return .reply(MockErrors.drfInvalidPage()) }
            return .window(MockWindow(page: page, size: size, total: total))
        case .smorest:
            // flask-smorest validates page_size (1...100) and refuses more with a 422, not a smaller page.
            if let text = context.query.value("page_size"), let size = Int(text), size > 100 {
                return .reply(MockErrors.smorestPageSizeTooLarge())
            }
            return pageWindow(context, page: "page", size: "page_size")
        case .litestar:
            for name in ["page_size", "current_page"] where context.query.value(name) == nil {
                return .reply(MockErrors.litestarMissingParameter(name, path: path))
            }
            return pageWindow(context, page: "current_page", size: "page_size")
        case .eve:
            return pageWindow(context, page: "page", size: "max_results")
        case .tastypie:
            // limit=0 is Tastypie's "all", up to its max_limit.
            let size = context.query.value("limit") == "0" ? context.maxPageSize : context.pageSize("limit")
            guard let size else { return bad(context, "limit") }
            guard let offset = context.offset("offset") else { return bad(context, "offset") }
            return .window(MockWindow(offset: offset, size: size, total: total))
        case .datasette:
            let size = context.query.value("_size") == "max" ? context.maxPageSize : context.pageSize("_size")
            guard let size else { return bad(context, "_size") }
            // The keyset: the id of the last row seen; ids are 1...total, so it is also the offset.
            guard let after = context.offset("_next") else { return bad(context, "_next") }
            return .window(MockWindow(offset: after, size: size, total: total))
        case .kinto:
            // No `_limit`: everything, up to the storage's largest fetch (the mock's largest page).
            let size = context.query.value("_limit") == nil ? context.maxPageSize : context.pageSize("_limit")
            guard let size else { return bad(context, "_limit") }
            guard let token = context.query.value("_token") else { return .window(MockWindow(offset: 0, size: size, total: total)) }
            guard let offset = Self.kintoOffset(token: token), offset <= total else { return bad(context, "_token") }
            return .window(MockWindow(offset: offset, size: size, total: total))
        case .drfLink:
            guard let size = context.pageSize("page_size") else { return bad(context, "page_size") }
            guard let page = context.pageNumber("page") else { return bad(context, "page") }
            let window = MockWindow(page: page, size: size, total: total)
            guard page <= window.pageCount else { return .reply(MockErrors.drfInvalidPage()) }
            return .window(window)
        case .wagtail:
            // WAGTAILAPI_LIMIT_MAX: a larger limit is a 400, not a smaller page.
            if let text = context.query.value("limit"), let limit = Int(text), limit > context.maxPageSize {
                return .reply(MockErrors.wagtailLimitTooHigh(context.maxPageSize))
            }
            guard let size = context.pageSize("limit") else { return bad(context, "limit") }
            guard let offset = context.offset("offset") else { return bad(context, "offset") }
            return .window(MockWindow(offset: offset, size: size, total: total))
        case .drf, .offset, .ninja, .drfLinkOffset:
            guard let size = context.pageSize("limit") else { return bad(context, "limit") }
            guard let offset = context.offset("offset") else { return bad(context, "offset") }
            return .window(MockWindow(offset: offset, size: size, total: total))
        case .slack:
            guard let size = context.pageSize("limit") else { return bad(context, "limit") }
            let cursor = context.query.value("cursor") ?? ""
            let numeric = context.query.value("mock_cursor") == "number"
            let read = numeric ? Int(cursor).map { $0 - Self.numericCursorBase } : Self.slackOffset(cursor: cursor)
            guard let offset = cursor.isEmpty ? 0 : read, offset >= 0, offset <= total else {
                return .reply(MockErrors.slackInvalidCursor())
            }
            return .window(MockWindow(offset: offset, size: size, total: total))
        case .mlflow:
            // A GET without max_results reads it as protobuf's default 0, which the handler refuses.
            guard let text = context.query.value("max_results"), let size = Int(text), size >= 1 else {
                return .reply(MockErrors.mlflowInvalidMaxResults(context.query.value("max_results") ?? "0"))
            }
            guard let token = context.query.value("page_token") else {
                return .window(MockWindow(offset: 0, size: min(size, context.maxPageSize), total: total))
            }
            guard let offset = Self.mlflowOffset(token: token) else { return .reply(MockErrors.mlflowInvalidPageToken()) }
            return .window(MockWindow(offset: offset, size: min(size, context.maxPageSize), total: total))
        case .mastodon:
            guard let size = context.pageSize("limit") else { return bad(context, "limit") }
            // The keyset: the id of the last item seen; ids are 1...total, so it is also the offset.
            guard let after = context.offset("max_id") else { return bad(context, "max_id") }
            return .window(MockWindow(offset: min(after, total), size: size, total: total))
        case .localstripe:
            guard let size = context.pageSize("limit") else { return bad(context, "limit") }
            let after = context.query.value("starting_after").flatMap { Int($0) }.flatMap { (1...total).contains($0) ? $0 : nil }
            return .window(MockWindow(offset: after ?? 0, size: size, total: total))
        case .jupyterhub:
            // `abs(int(…))` of each, a limit of 0 read as 1; without the pagination media type the limit defaults to
            // the largest page (JupyterHub's api_page_max_limit, so that old clients miss fewer users).
            let paginated = MockAccept.listsJupyterHubPagination(context.accept)
            guard let offset = Self.absoluteInteger(context.query.value("offset") ?? "0"),
                let limit = Self.absoluteInteger(context.query.value("limit") ?? String(paginated ? context.defaultPageSize : context.maxPageSize))
            else { return .reply(MockErrors.jupyterHubInvalidArgument()) }
            return .window(MockWindow(offset: min(offset, Int.max / 2), size: min(max(limit, 1), context.maxPageSize), total: total))
        case .piccolo:
            guard let text = context.query.value("__page_size") ?? Optional(String(context.defaultPageSize)), let size = Int(text) else {
                return .reply(MockErrors.piccoloParameter("__page_size", context.query.value("__page_size") ?? ""))
            }
            // A size above the largest is refused, not capped; one below 1 is SQLite's "no limit" there, refused here.
            guard size <= context.maxPageSize, size >= 1 else { return .reply(MockErrors.piccoloPageSizeExceeded()) }
            guard let page = Int(context.query.value("__page") ?? "1") else {
                return .reply(MockErrors.piccoloParameter("__page", context.query.value("__page") ?? ""))
            }
            // Page 0 and below are the first page.
            return .window(MockWindow(page: max(page, 1), size: size, total: total))
        case .mailman:
            let (count, page) = (context.query.value("count"), context.query.value("page"))
            // Neither: every item (up to the largest page). One without the other fails in Mailman's own code: a 500.
            if count == nil, page == nil { return .window(MockWindow(offset: 0, size: context.maxPageSize, total: total)) }
            guard let count, let page else { return .reply(MockErrors.internalError()) }
            guard let size = Int(count), size >= 1 else { return bad(context, "count") }
            guard let number = Int(page), number >= 1 else { return bad(context, "page") }
            return .window(MockWindow(page: number, size: min(size, context.maxPageSize), total: total))
        case .fab:
            guard let (page, size) = Self.fabPage(context.query.value("q") ?? "()") else { return .reply(MockErrors.fabInvalidRison()) }
            // FAB's `page_size or default`, then a size above the largest or below 1 read as the largest.
            let asked = size == 0 ? context.defaultPageSize : size ?? context.defaultPageSize
            let limit = asked >= 1 && asked <= context.maxPageSize ? asked : context.maxPageSize
            return .window(MockWindow(page: max(page ?? 0, 0) + 1, size: limit, total: total))
        case .safrs:
            guard let offset = Int(context.query.value("page[offset]") ?? "0"),
                let limit = Int(context.query.value("page[limit]") ?? String(context.defaultPageSize))
            else { return bad(context, "page[offset]") }
            return .window(MockWindow(offset: min(max(offset, 0), Int.max / 2), size: min(max(limit, 1), context.maxPageSize), total: total))
        case .synapse:
            guard let size = context.pageSize("limit") else { return bad(context, "limit") }
            guard let from = context.offset("from") else { return bad(context, "from") }
            return .window(MockWindow(offset: from, size: size, total: total))
        case .graphene:
            return grapheneWindow(context)
        case .datatables:
            return datatablesWindow(context)
        case .strawberry:
            return grapheneWindow(context) { _ in MockErrors.strawberryError("Argument 'first' cannot be higher than \(context.maxPageSize).") }
        case .airflow:
            return airflowWindow(context)
        case .spring:
            guard let size = context.pageSize("size") else { return bad(context, "size") }
            guard let page = Int(context.query.value("page") ?? "0"), page >= 0 else { return bad(context, "page") }
            return .window(MockWindow(page: page + 1, size: size, total: total))
        case .graph:
            guard let size = context.pageSize("$top") else { return bad(context, "$top") }
            guard let offset = context.offset("$skiptoken") else { return bad(context, "$skiptoken") }
            return .window(MockWindow(offset: offset, size: size, total: total))
        case .aspnet:
            return pageWindow(context, page: "pageNumber", size: "pageSize")
        case .facets:
            return pageWindow(context, page: "page", size: "per_page")
        case .reddit:
            return redditWindow(context)
        case .zendesk:
            return zendeskWindow(context)
        case .notion:
            return notionWindow(context)
        case .mediawiki:
            return mediaWikiWindow(context)
        case .roundup:
            return roundupWindow(context)
        case .stripe:
            guard let size = context.pageSize("limit") else { return bad(context, "limit") }
            guard let after = context.query.value("starting_after") else {
                return .window(MockWindow(offset: 0, size: size, total: total))
            }
            // Item ids are 1...total; the page starts right after the named item.
            guard let id = Int(after), id >= 1, id <= total else {
                return .reply(MockErrors.stripeNoSuchObject(after))
            }
            return .window(MockWindow(offset: id, size: size, total: total))
        }
    }

    private func pageWindow(_ context: MockContext, page pageName: String, size sizeName: String) -> Parsed {
        guard let size = context.pageSize(sizeName) else { return bad(context, sizeName) }
        guard let page = context.pageNumber(pageName) else { return bad(context, pageName) }
        return .window(MockWindow(page: page, size: size, total: context.total))
    }

    func bad(_ context: MockContext, _ name: String) -> Parsed {
        .reply(MockErrors.badParameter(self, name, context.query.value(name) ?? ""))
    }

    /// Flask-AppBuilder's `q`, a Rison object (`(filters:!((col:name,opr:ct,value:x)),page:2,page_size:100)`), read
    /// with the codec PageProxy writes it with (real15: split on commas, a `q` with filters was a 400): its `page` and
    /// `page_size` when they are integers or absent; nil for anything that is no Rison object, or such members that are
    /// no integers.
    static func fabPage(_ rison: String) -> (page: Int?, size: Int?)? {
        guard let value = try? RisonDecoder.decode(rison), case .object = value else { return nil }
        func integer(_ name: String) -> Int?? {
            guard let member = value.member(name) else { return .some(nil) }
            guard case .number(let text) = member, let number = Int(text) else { return nil }
            return .some(number)
        }
        guard let page = integer("page"), let size = integer("page_size") else { return nil }
        return (page, size)
    }

    /// JupyterHub's `abs(int(text))`: "-5" is 5; nil for anything that is not an integer.
    static func absoluteInteger(_ text: String) -> Int? {
        Int(text.trimmingCharacters(in: .whitespaces)).map { $0 == Int.min ? Int.max : abs($0) }
    }

    /// Kinto-style `_token`: base64 of `{"offset": N, "nonce": "…"}`, a fresh nonce each time (Kinto's is a uuid4).
    package static func kintoToken(offset: Int) -> String {
        Data(#"{"offset": \#(offset), "nonce": "pagination-token-\#(UUID().uuidString.lowercased())"}"#.utf8).base64EncodedString()
    }

    /// The offset a token from `kintoToken(offset:)` stands for; nil for anything else.
    package static func kintoOffset(token: String) -> Int? {
        guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8),
            let start = text.range(of: #"{"offset": "#)?.upperBound
        else { return nil }
        let digits = text[start...].prefix { $0.isNumber }
        return Int(digits).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// MLflow's page token: base64 of `{"offset": N}` (Python's `json.dumps`), padded.
    package static func mlflowToken(offset: Int) -> String {
        Data(#"{"offset": \#(offset)}"#.utf8).base64EncodedString()
    }

    /// The offset an MLflow page token stands for; nil for anything else.
    package static func mlflowOffset(token: String) -> Int? {
        guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8),
            text.hasPrefix(#"{"offset": "#), text.hasSuffix("}")
        else { return nil }
        return Int(text.dropFirst(#"{"offset": "#.count).dropLast()).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// What a numeric cursor (`mock_cursor=number`) adds to the offset it stands for: a large number, as Twitter's are.
    package static let numericCursorBase = 1_000_000_000

    /// Slack-style opaque cursor: base64 of "offset:N".
    package static func slackCursor(offset: Int) -> String {
        Data("offset:\(offset)".utf8).base64EncodedString()
    }

    /// The offset a cursor from `slackCursor(offset:)` stands for; nil for anything else.
    /// Missing padding is tolerated, and a space reads as `+` (an unencoded `+` in a query).
    package static func slackOffset(cursor: String) -> Int? {
        var text = cursor.replacingOccurrences(of: " ", with: "+")
        text += String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: text) else { return nil }
        let decoded = String(decoding: data, as: UTF8.self)
        guard decoded.hasPrefix("offset:"), let offset = Int(decoded.dropFirst("offset:".count)),
            offset >= 0
        else { return nil }
        return offset
    }
}

import PageProxyCore
/// The response each imitated service writes for one window of the dataset.
///
/// `next` comes from the request's faults: `.loop` and `.foreign` force a next link (or
/// cursor) even on the last page — back to page 1, or to another origin.
package enum MockWireFormats {
    package static func render(
        _ service: MockService, _ window: MockWindow, _ context: MockContext, next: MockFaults.NextLink
    ) -> MockResponse {
        switch service {
        case .plain: plain(window)
        case .wrapped: wrapped(window)
        case .github: github(window, context, next: next)
        case .gitlab: gitlab(window, context, next: next)
        case .drf: drfLimitOffset(window, context, next: next)
        case .drfPages: drfPageNumber(window, context, next: next)
        case .jsonapi: jsonapi(window, context, next: next)
        case .slack: slack(window, context, next: next)
        case .stripe: stripe(window)
        case .offset: offset(window)
        case .smorest: smorest(window)
        case .ninja: ninja(window)
        case .litestar: litestar(window)
        case .eve: eve(window, context)
        case .tastypie: tastypie(window, context)
        case .datasette: datasette(window, context)
        case .kinto: kinto(window, context, next: next)
        case .drfLink: drfLink(window, context, next: next)
        case .drfLinkOffset: drfLinkOffset(window, context, next: next)
        case .wagtail: wagtail(window)
        case .mlflow: mlflow(window)
        case .mastodon: mastodon(window, context)
        case .localstripe: localstripe(window)
        case .jupyterhub: jupyterHub(window, context)
        case .piccolo: piccolo(window, context)
        case .mailman: mailman(window)
        case .fab: fab(window)
        case .safrs: safrs(window, context)
        case .synapse: synapse(window)
        case .graphene: graphene(window)
        case .datatables: datatables(window, context)
        case .strawberry: strawberry(window)
        case .airflow: airflow(window)
        case .spring: spring(window)
        case .graph: graph(window, context)
        case .aspnet: aspNet(window)
        case .facets: facets(window, context)
        case .reddit: reddit(window)
        case .zendesk: zendesk(window, context)
        case .notion: notion(window)
        case .mediawiki: mediaWiki(window, context)
        case .roundup: roundup(window, context)
        }
    }

    /// Root JSON array; past the end `[]`.
    package static func plain(_ window: MockWindow) -> MockResponse {
        .json(status: 200, body: window.itemsJSON)
    }

    /// GitHub search style: `{"total_count":T,"incomplete_results":false,"items":[…]}`.
    package static func wrapped(_ window: MockWindow) -> MockResponse {
        let body = MockJSON.envelope(
            #"{"total_count":\#(window.countStated),"incomplete_results":false,"items":"#, window.itemsJSON, "}")
        return .json(status: 200, body: body)
    }

    /// GitHub REST: root array; `Link` with prev, next, last, first (each only when it applies).
    /// Links keep the request's other parameters in order and put `page=` last. Like GitHub's (a request for
    /// `/repos/o/r/issues` gets links to `/repositories/<id>/issues`), they point to another path that serves the
    /// same data: `MockService.githubLinkPath`.
    package static func github(_ window: MockWindow, _ context: MockContext, next: MockFaults.NextLink) -> MockResponse {
        let others = context.query.items(excluding: ["page"])
        func url(_ base: String, _ page: Int) -> String {
            base + MockService.githubLinkPath + "?"
                + MockQuery.queryString(others + [MockQuery.Item(name: "page", value: String(page))])
        }
        let last = window.pageCount
        guard let habit = MockLinkHabit(query: context.query.value("mock_link")) else {
            return MockErrors.badOption("mock_link", context.query.value("mock_link") ?? "")
        }
        var links: [String] = []
        if window.page > 1 {
            links.append(#"<\#(url(context.baseURL, window.page - 1))>; rel="prev""# + habit.prevSuffix)
        }
        links += habit.decoys(url(context.baseURL, min(window.page, Int.max - 5) + 5))
        if let nextPage = nextPage(window, next) {
            links.append(#"<\#(url(context.nextBase(next), nextPage))>; rel="next""#)
        }
        if window.page < last, habit.writesLast {
            links.append(#"<\#(url(context.baseURL, last))>; rel="last""#)
        }
        if window.page > 1 {
            links.append(#"<\#(url(context.baseURL, 1))>; rel="first""#)
        }
        let headers = links.isEmpty ? [] : [(name: "Link", value: links.joined(separator: ", "))]
        return .json(status: 200, body: window.itemsJSON, extraHeaders: headers)
    }

    /// GitLab: root array; `X-Per-Page`, `X-Page`, `X-Next-Page`, `X-Prev-Page`, `Link`
    /// (prev, next, first, last), `X-Total`, `X-Total-Pages` — GitLab's order. Link queries
    /// hold every parameter plus page and per_page, sorted (Rails `to_query`).
    package static func gitlab(_ window: MockWindow, _ context: MockContext, next: MockFaults.NextLink) -> MockResponse {
        let others = context.query.items(excluding: ["page", "per_page"])
        func url(_ base: String, _ page: Int) -> String {
            let items = others + [
                MockQuery.Item(name: "page", value: String(page)),
                MockQuery.Item(name: "per_page", value: String(window.size)),
            ]
            return base + context.query.path + "?" + items.map(MockQuery.encodePair).sorted().joined(separator: "&")
        }
        let pages = window.pageCount
        let nextPage = nextPage(window, next)
        // Kaminari: no prev page on the first page or past the end.
        let prevPage = window.page > 1 && window.page <= pages ? window.page - 1 : nil
        var links: [String] = []
        if let prevPage { links.append(#"<\#(url(context.baseURL, prevPage))>; rel="prev""#) }
        if let nextPage { links.append(#"<\#(url(context.nextBase(next), nextPage))>; rel="next""#) }
        links.append(#"<\#(url(context.baseURL, 1))>; rel="first""#)
        links.append(#"<\#(url(context.baseURL, pages))>; rel="last""#)
        let headers: [(name: String, value: String)] = [
            (name: "X-Per-Page", value: String(window.size)),
            (name: "X-Page", value: String(window.page)),
            (name: "X-Next-Page", value: nextPage.map(String.init) ?? ""),
            (name: "X-Prev-Page", value: prevPage.map(String.init) ?? ""),
            (name: "Link", value: links.joined(separator: ", ")),
            (name: "X-Total", value: String(window.total)),
            (name: "X-Total-Pages", value: String(pages)),
        ]
        return .json(status: 200, body: window.itemsJSON, extraHeaders: headers)
    }

    /// DRF LimitOffsetPagination: `{"count":T,"next":…,"previous":…,"results":[…]}`; links are
    /// absolute with sorted parameters; the previous link of the second page drops `offset`.
    package static func drfLimitOffset(
        _ window: MockWindow, _ context: MockContext, next: MockFaults.NextLink
    ) -> MockResponse {
        let limit = String(window.size)
        var nextURL: String?
        switch next {
        case .normal where !window.isLast, .foreign, .again:
            nextURL = drfURL(context.nextBase(next), context, set: [("limit", limit), ("offset", String(window.offset + window.size))])
        case .loop:
            nextURL = drfURL(context.baseURL, context, set: [("limit", limit), ("offset", "0")])
        case .normal:
            nextURL = nil
        }
        var previousURL: String?
        if window.offset > 0 {
            previousURL = window.offset - window.size <= 0
                ? drfURL(context.baseURL, context, set: [("limit", limit)], remove: ["offset"])
                : drfURL(context.baseURL, context, set: [("limit", limit), ("offset", String(window.offset - window.size))])
        }
        return drfBody(window, next: nextURL, previous: previousURL)
    }

    /// DRF PageNumberPagination: `{"count":T,"next":…,"previous":…,"results":[…]}`; the previous
    /// link of page 2 drops `page`.
    package static func drfPageNumber(
        _ window: MockWindow, _ context: MockContext, next: MockFaults.NextLink
    ) -> MockResponse {
        let nextURL = nextPage(window, next).map {
            drfURL(context.nextBase(next), context, set: [("page", String($0))] + again(next, context))
        }
        var previousURL: String?
        if window.page > 1 {
            previousURL = window.page - 1 == 1
                ? drfURL(context.baseURL, context, set: [], remove: ["page"])
                : drfURL(context.baseURL, context, set: [("page", String(window.page - 1))])
        }
        return drfBody(window, next: nextURL, previous: previousURL)
    }

    /// JSON:API: `{"data":[…],"links":{"self","first","prev","next","last"},"meta":{"total":T}}`;
    /// links are relative with percent-encoded brackets (absolute only for a `foreign` fault).
    package static func jsonapi(_ window: MockWindow, _ context: MockContext, next: MockFaults.NextLink) -> MockResponse {
        let others = context.query.items(excluding: ["page[number]", "page[size]"])
        func link(_ page: Int) -> String {
            context.query.path + "?" + MockQuery.queryString([
                MockQuery.Item(name: "page[number]", value: String(page)),
                MockQuery.Item(name: "page[size]", value: String(window.size)),
            ] + others)
        }
        let nextLink = nextPage(window, next).map { (next == .foreign ? context.foreignBaseURL : "") + link($0) }
        let links = #"{"self":\#(JSONText.string(link(window.page))),"first":\#(JSONText.string(link(1)))"#
            + #","prev":\#(MockJSON.stringOrNull(window.page > 1 ? link(window.page - 1) : nil))"#
            + #","next":\#(MockJSON.stringOrNull(nextLink)),"last":\#(JSONText.string(link(window.pageCount)))}"#
        let body = MockJSON.envelope(#"{"data":"#, window.itemsJSON, #","links":\#(links),"meta":{"total":\#(window.total)}}"#)
        var response = MockResponse.json(status: 200, body: body)
        response.setHeader("Content-Type", MockAccept.jsonAPI)
        return response
    }

    /// Slack: `{"ok":true,"members":[…],"response_metadata":{"next_cursor":"…"}}`; the cursor is
    /// base64 of "offset:N", `""` on the last page. `mock_cursor=number` writes it as Twitter's `next_cursor` does: a
    /// JSON number (the next offset, from 1 billion up), `0` on the last page; `mock_cursor=object` writes `{}`.
    package static func slack(_ window: MockWindow, _ context: MockContext, next: MockFaults.NextLink) -> MockResponse {
        let cursor: String = switch next {
        case .loop: MockService.slackCursor(offset: 0)
        case .normal, .foreign, .again: window.isLast ? "" : MockService.slackCursor(offset: window.offset + window.size)
        }
        let written: String = switch context.query.value("mock_cursor") {
        case "number": window.isLast ? "0" : String(MockService.numericCursorBase + window.offset + window.size)
        case "object": "{}"
        default: JSONText.string(cursor)
        }
        let body = MockJSON.envelope(
            #"{"ok":true,"members":"#, window.itemsJSON,
            #","response_metadata":{"next_cursor":\#(written)}}"#)
        return .json(status: 200, body: body)
    }

    /// Stripe: `{"object":"list","url":"/v1/items","has_more":B,"data":[…]}`.
    package static func stripe(_ window: MockWindow) -> MockResponse {
        let body = MockJSON.envelope(
            #"{"object":"list","url":"/v1/items","has_more":\#(!window.isLast),"data":"#, window.itemsJSON, "}")
        return .json(status: 200, body: body)
    }

    /// Plain offset API: `{"total":T,"items":[…]}`.
    package static func offset(_ window: MockWindow) -> MockResponse {
        let body = MockJSON.envelope(#"{"total":\#(window.countStated),"items":"#, window.itemsJSON, "}")
        return .json(status: 200, body: body)
    }

    /// flask-smorest: a bare array (Flask: compact, non-ASCII escaped); `X-Pagination: {"total": T, "total_pages": P,
    /// "first_page": 1, "last_page": P, "page": N, "previous_page": N-1, "next_page": N+1}` written by Python's
    /// `json` (`", "`), `page` and the rest only up to the last page; Werkzeug closes every connection.
    package static func smorest(_ window: MockWindow) -> MockResponse {
        let pages = window.pageCount
        var header = #"{"total": \#(window.total), "total_pages": \#(window.total == 0 ? 0 : pages)"#
        if window.total > 0 {
            header += #", "first_page": 1, "last_page": \#(pages)"#
            if window.page <= pages {
                header += #", "page": \#(window.page)"#
                if window.page > 1 { header += #", "previous_page": \#(window.page - 1)"# }
                if window.page < pages { header += #", "next_page": \#(window.page + 1)"# }
            }
        }
        var response = MockResponse.json(
            status: 200, body: MockJSON.pythonStyle(window.itemsJSON, spaced: false), extraHeaders: [(name: "X-Pagination", value: header + "}")])
        response.closesConnection = true
        return response
    }

    /// django-ninja LimitOffsetPagination: `{"items": [...], "count": T}`, the count after the items, written by
    /// Python's `json` (`", "` and `": "`, non-ASCII escaped); no next link.
    package static func ninja(_ window: MockWindow) -> MockResponse {
        let body = MockJSON.envelope(#"{"items": "#, MockJSON.pythonStyle(window.itemsJSON, spaced: true), #", "count": \#(window.total)}"#)
        return .json(status: 200, body: body)
    }

    /// Litestar ClassicPagination (msgspec: compact, UTF-8): `{"items":[…],"page_size":S,"current_page":N,"total_pages":P}`.
    package static func litestar(_ window: MockWindow) -> MockResponse {
        let body = MockJSON.envelope(
            #"{"items":"#, window.itemsJSON,
            #","page_size":\#(window.size),"current_page":\#(window.page),"total_pages":\#(window.total == 0 ? 0 : window.pageCount)}"#)
        return .json(status: 200, body: body)
    }

    /// The page a next link points to: the following page unless this is the last one;
    /// page 1 for `.loop`; the following page (even after the last) for `.foreign`; this page for `.again`.
    private static func nextPage(_ window: MockWindow, _ next: MockFaults.NextLink) -> Int? {
        switch next {
        case .normal: window.page < window.pageCount ? window.page + 1 : nil
        case .loop: 1
        case .foreign: window.page + 1
        case .again: window.page
        }
    }

    /// For `.again`, the `mock_again` parameter that makes this page's URL new: one more than the request's.
    static func again(_ next: MockFaults.NextLink, _ context: MockContext) -> [(String, String)] {
        guard next == .again else { return [] }
        return [("mock_again", String((context.query.value("mock_again").flatMap { Int($0) } ?? 0) + 1))]
    }

    private static func drfBody(_ window: MockWindow, next: String?, previous: String?) -> MockResponse {
        let body = MockJSON.envelope(
            #"{"count":\#(window.countStated),"next":\#(MockJSON.stringOrNull(next)),"previous":\#(MockJSON.stringOrNull(previous)),"results":"#,
            window.itemsJSON, "}")
        return .json(status: 200, body: body)
    }

    /// DRF's `replace_query_param` / `remove_query_param`: parameters grouped by name, sorted by name.
    static func drfURL(
        _ base: String, _ context: MockContext, set: [(String, String)], remove: Set<String> = []
    ) -> String {
        var values: [String: [String]] = [:]
        for item in context.query.items where !remove.contains(item.name) {
            values[item.name, default: []].append(item.value)
        }
        for (name, value) in set {
            values[name] = [value]
        }
        let pairs = values.keys.sorted().flatMap { name in
            (values[name] ?? []).map { MockQuery.encodePair(MockQuery.Item(name: name, value: $0)) }
        }
        return base + context.query.path + (pairs.isEmpty ? "" : "?" + pairs.joined(separator: "&"))
    }
}

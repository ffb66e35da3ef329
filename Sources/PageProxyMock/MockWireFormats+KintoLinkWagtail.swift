import PageProxyCore

/// Kinto, drf-link-header-pagination and Wagtail's API v2 as scripts/real-upstreams found them (branch real11).
extension MockWireFormats {
    /// Kinto: `{"data": […]}` (compact), the next page only in `Next-Page`: an absolute URL with the request's
    /// parameters in order, `_limit` and `_token` set in place or appended, the token a fresh one each time (so the
    /// same page names a different next URL on every request). Kinto asks its storage for one record more than the
    /// limit, so a full last page has no `Next-Page`. No total on a GET (`Total-Records` only on HEAD), and
    /// `Cache-Control: no-cache, no-store` on every answer, as a collection with no cache expiry sends.
    package static func kinto(_ window: MockWindow, _ context: MockContext, next: MockFaults.NextLink) -> MockResponse {
        var headers: [(name: String, value: String)] = [(name: "Cache-Control", value: "no-cache, no-store")]
        let nextOffset: Int? = switch next {
        case .again: window.offset
        case .loop: 0
        case .normal where !window.isLast, .foreign: window.offset + window.size
        case .normal: nil
        }
        if let nextOffset {
            var items = context.query.items(excluding: ["mock_again"])
            let set = [("_limit", String(window.size)), ("_token", MockService.kintoToken(offset: nextOffset))] + again(next, context)
            for (name, value) in set {
                if let index = items.firstIndex(where: { $0.name == name }) {
                    items[index].value = value
                } else {
                    items.append(MockQuery.Item(name: name, value: value))
                }
            }
            headers.append((name: "Next-Page", value: context.nextBase(next) + context.query.path + "?" + MockQuery.queryString(items)))
        }
        return .json(status: 200, body: MockJSON.envelope(#"{"data":"#, window.itemsJSON, "}"), extraHeaders: headers)
    }

    /// drf-link-header-pagination's `LinkHeaderPagination`: the items as a bare array (DRF's compact JSON) and
    /// `Link: <…>; rel="prev", <…>; rel="next", <…>; rel="first", <…>; rel="last"`, absolute, each only where it
    /// applies (first only after page 1, last only before the last page), the parameters sorted as DRF's
    /// `replace_query_param` writes them; page 2's prev and every first link drop `page`.
    package static func drfLink(_ window: MockWindow, _ context: MockContext, next: MockFaults.NextLink) -> MockResponse {
        func url(_ page: Int?, base: String = context.baseURL, extra: [(String, String)] = []) -> String {
            guard let page, page > 1 || !extra.isEmpty else { return drfURL(base, context, set: [], remove: ["page"]) }
            return drfURL(base, context, set: [("page", String(page))] + extra)
        }
        var links: [String] = []
        if window.page > 1 { links.append(#"<\#(url(window.page - 1))>; rel="prev""#) }
        let nextPage: Int? = switch next {
        case .normal: window.page < window.pageCount ? window.page + 1 : nil
        case .loop: 1
        case .foreign: window.page + 1
        case .again: window.page
        }
        if let nextPage { links.append(#"<\#(url(nextPage, base: context.nextBase(next), extra: again(next, context)))>; rel="next""#) }
        if window.page > 1 { links.append(#"<\#(url(nil))>; rel="first""#) }
        if window.page < window.pageCount { links.append(#"<\#(url(window.pageCount))>; rel="last""#) }
        let headers = links.isEmpty ? [] : [(name: "Link", value: links.joined(separator: ", "))]
        return .json(status: 200, body: window.itemsJSON, extraHeaders: headers)
    }

    /// drf-link-header-pagination's `LinkHeaderLimitOffsetPagination`: a bare array and `Link` with prev, next (DRF's
    /// limit-offset links, sorted), first (no `offset`, on every page) and last (`offset` of the last page, only
    /// before it: as the library computes it, `count - ((count - 1) % limit) - 1`).
    package static func drfLinkOffset(_ window: MockWindow, _ context: MockContext, next: MockFaults.NextLink) -> MockResponse {
        let limit = String(window.size)
        var links: [String] = []
        if window.offset > 0 {
            let previous = window.offset - window.size <= 0
                ? drfURL(context.baseURL, context, set: [("limit", limit)], remove: ["offset"])
                : drfURL(context.baseURL, context, set: [("limit", limit), ("offset", String(window.offset - window.size))])
            links.append(#"<\#(previous)>; rel="prev""#)
        }
        let nextOffset: Int? = switch next {
        case .normal: window.isLast ? nil : window.offset + window.size
        case .loop: 0
        case .foreign: window.offset + window.size
        case .again: window.offset
        }
        if let nextOffset {
            let url = drfURL(context.nextBase(next), context, set: [("limit", limit), ("offset", String(nextOffset))] + again(next, context))
            links.append(#"<\#(url)>; rel="next""#)
        }
        links.append(#"<\#(drfURL(context.baseURL, context, set: [("limit", limit)], remove: ["offset"]))>; rel="first""#)
        if !window.isLast {
            let lastOffset = max(0, window.total - ((window.total - 1) % window.size) - 1)
            links.append(#"<\#(drfURL(context.baseURL, context, set: [("limit", limit), ("offset", String(lastOffset))]))>; rel="last""#)
        }
        return .json(status: 200, body: window.itemsJSON, extraHeaders: [(name: "Link", value: links.joined(separator: ", "))])
    }

    /// Wagtail's API v2 listing: `{"meta": {"total_count": T}, "items": […]}` indented by four spaces (as it answered
    /// the harness), items in Python's spaced style; no next link, no offset or limit in the body.
    package static func wagtail(_ window: MockWindow) -> MockResponse {
        let body = MockJSON.envelope(
            "{\n    \"meta\": {\n        \"total_count\": \(window.total)\n    },\n    \"items\": ",
            MockJSON.pythonStyle(window.itemsJSON, spaced: true), "\n}")
        return .json(status: 200, body: body, extraHeaders: [(name: "Vary", value: "Accept")])
    }
}

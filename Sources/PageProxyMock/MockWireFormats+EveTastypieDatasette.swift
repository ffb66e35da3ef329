import PageProxyCore

/// Eve, django-tastypie and Datasette as scripts/real-upstreams found them (branch real10); Python's `json` writes
/// all three (`", "`, `": "`, non-ASCII escaped).
extension MockWireFormats {
    /// Eve: `{"_items": […], "_links": {"parent", "self", "next", "last", "prev"}, "_meta": {"page", "max_results",
    /// "total"}}` and `X-Total-Count`. Every href is relative with no leading slash (`items?max_results=10&page=2`),
    /// so only RFC 3986 resolution against the request's path finds `/eve/items`; "next" and "last" only before the
    /// last page, "prev" after the first.
    package static func eve(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        let resource = context.query.path.split(separator: "/").last.map(String.init) ?? ""
        let others = context.query.items(excluding: ["page"])
        func href(_ page: Int?) -> String {
            let items = others + (page.map { [MockQuery.Item(name: "page", value: String($0))] } ?? [])
            return JSONText.string(resource + (items.isEmpty ? "" : "?" + MockQuery.queryString(items)))
        }
        let query = context.query.items.isEmpty ? "" : "?" + MockQuery.queryString(context.query.items)
        var links = [
            #""parent": {"title": "home", "href": "/"}"#,
            #""self": {"title": \#(JSONText.string(resource)), "href": \#(JSONText.string(resource + query))}"#,
        ]
        if !window.isLast {
            links.append(#""next": {"title": "next page", "href": \#(href(window.page + 1))}"#)
            links.append(#""last": {"title": "last page", "href": \#(href(window.pageCount))}"#)
        }
        if window.page > 1 {
            links.append(#""prev": {"title": "previous page", "href": \#(href(window.page > 2 ? window.page - 1 : nil))}"#)
        }
        let meta = #"{"page": \#(window.page), "max_results": \#(window.size), "total": \#(window.total)}"#
        let body = MockJSON.envelope(
            #"{"_items": "#, MockJSON.pythonStyle(window.itemsJSON, spaced: true),
            #", "_links": {\#(links.joined(separator: ", "))}, "_meta": \#(meta)}"#)
        return .json(status: 200, body: body, extraHeaders: [(name: "X-Total-Count", value: String(window.total))])
    }

    /// django-tastypie: `{"meta": {"limit", "next", "offset", "previous", "total_count"}, "objects": […]}`; next and
    /// previous are absolute paths (`/tastypie/items/?limit=10&offset=10`), the request's other parameters kept in
    /// order with limit and offset set in place; `Cache-Control: no-cache` on every answer, as Tastypie sends.
    package static func tastypie(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        func link(_ offset: Int) -> String {
            var items = context.query.items
            for (name, value) in [("limit", String(window.size)), ("offset", String(offset))] {
                if let index = items.firstIndex(where: { $0.name == name }) {
                    items[index].value = value
                } else {
                    items.append(MockQuery.Item(name: name, value: value))
                }
            }
            return JSONText.string(context.query.path + "?" + MockQuery.queryString(items))
        }
        let next = window.isLast ? "null" : link(window.offset + window.size)
        let previous = window.offset == 0 ? "null" : link(max(0, window.offset - window.size))
        let meta = #"{"limit": \#(window.size), "next": \#(next), "offset": \#(window.offset), "previous": \#(previous), "total_count": \#(window.total)}"#
        let body = MockJSON.envelope(#"{"meta": \#(meta), "objects": "#, MockJSON.pythonStyle(window.itemsJSON, spaced: true), "}")
        return .json(status: 200, body: body, extraHeaders: [(name: "Vary", value: "Accept"), (name: "Cache-Control", value: "no-cache")])
    }

    /// Datasette's table JSON, keyset-paged by `_next=<last id>`: `{"database", "table", "rows", "truncated",
    /// "filtered_table_rows_count", "columns", "primary_keys", "suggested_facets": [{…}], "next": "20", "next_url":
    /// "http://h/datasette/items?_next=20"}`, rows as arrays of `id` and `name` by default, the items with
    /// `_shape=objects`, and with `_shape=array` a bare array of the items; every shape sends the next page in
    /// `Link: <…>; rel="next"` too (absolute, from the Host).
    package static func datasette(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        let nextToken = window.isLast ? nil : String(window.offset + window.count)
        let nextURL = nextToken.map { token in
            context.baseURL + context.query.path + "?"
                + MockQuery.queryString(context.query.items(excluding: ["_next"]) + [MockQuery.Item(name: "_next", value: token)])
        }
        let link = nextURL.map { [(name: "link", value: "<\($0)>; rel=\"next\"")] } ?? []
        let items = MockJSON.pythonStyle(window.itemsJSON, spaced: true)
        let shape = context.query.value("_shape")
        if shape == "array" { return .json(status: 200, body: items, extraHeaders: link) }
        let rows: [UInt8] = shape == "objects" ? items : Array(("[" + (0..<window.count).map { index in
            let id = window.offset + index + 1
            return "[\(id), \"item-\(id)\"]"
        }.joined(separator: ", ") + "]").utf8)
        let facet = JSONText.string(context.baseURL + context.query.path + "?_facet=kind")
        let body = MockJSON.envelope(
            #"{"database": "mock", "table": "items", "is_view": false, "rows": "#, rows,
            #", "truncated": false, "filtered_table_rows_count": \#(window.total), "columns": ["id", "name"], "#
                + #""primary_keys": ["id"], "suggested_facets": [{"name": "kind", "toggle_url": \#(facet)}], "#
                + #""next": \#(MockJSON.stringOrNull(nextToken)), "next_url": \#(MockJSON.stringOrNull(nextURL))}"#)
        return .json(status: 200, body: body, extraHeaders: link)
    }
}

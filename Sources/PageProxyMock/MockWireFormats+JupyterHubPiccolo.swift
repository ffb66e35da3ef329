import PageProxyCore

/// JupyterHub's REST API, Piccolo API's PiccoloCRUD and Mailman 3's REST API as scripts/real-upstreams found them
/// (branch real13).
extension MockWireFormats {
    /// JupyterHub: with its pagination media type in `Accept`, `{"items": […], "_pagination": {"offset", "limit",
    /// "total", "next": {"offset", "limit", "url"}}}` as Python's `json.dumps` writes it (`, ` and `: `), `next` null
    /// on the last page and its `url` absolute: the request's query with `offset` and `limit` set in place (appended
    /// when absent). Without that type, a bare array: nothing says more exist.
    package static func jupyterHub(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        guard MockAccept.listsJupyterHubPagination(context.accept) else { return .json(status: 200, body: window.itemsJSON) }
        var next = "null"
        if !window.isLast {
            let offset = window.offset + window.size
            var items = context.query.items
            for (name, value) in [("offset", offset), ("limit", window.size)] {
                if let index = items.firstIndex(where: { $0.name == name }) {
                    // parse_qs reads every value of the name, and the one it sets replaces them all.
                    items[index].value = String(value)
                    items = items.enumerated().filter { $0.offset == index || $0.element.name != name }.map(\.element)
                } else {
                    items.append(MockQuery.Item(name: name, value: String(value)))
                }
            }
            let url = context.baseURL + context.query.path + "?" + MockQuery.queryString(items)
            next = #"{"offset": \#(offset), "limit": \#(window.size), "url": \#(JSONText.string(url))}"#
        }
        let pagination = #", "_pagination": {"offset": \#(window.offset), "limit": \#(window.size), "total": \#(window.total), "next": \#(next)}}"#
        return .json(status: 200, body: MockJSON.envelope(#"{"items": "#, window.itemsJSON, pagination))
    }

    /// Piccolo API: `{"rows":[…]}`, compact, nothing else; with `__range_header=true` (or `True`, `1`) a
    /// `Content-Range: items FIRST-LAST/TOTAL` header in react-admin's form (the table's name as the unit; an empty
    /// page says `OFFSET-OFFSET/TOTAL`).
    package static func piccolo(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        var headers: [(name: String, value: String)] = []
        if let flag = context.query.value("__range_header"), ["true", "True", "1"].contains(flag) {
            let last = window.count == 0 ? window.offset : window.offset + window.count - 1
            headers.append((name: "Content-Range", value: "items \(window.offset)-\(last)/\(window.total)"))
        }
        return .json(status: 200, body: MockJSON.envelope(#"{"rows":"#, window.itemsJSON, "}"), extraHeaders: headers)
    }

    /// Mailman 3: `{"entries": […], "http_etag": "\"…\"", "start": N, "total_size": T}` as `json.dumps(sort_keys=True)`
    /// writes it, and **no `entries` at all** on a page past the end (or of an empty list).
    package static func mailman(_ window: MockWindow) -> MockResponse {
        let etag = #""http_etag": "\"\#(MockUpstream.fingerprint(window.itemsJSON))\"", "start": \#(window.offset), "total_size": \#(window.total)}"#
        guard window.count > 0 else { return .json(status: 200, body: Array(("{" + etag).utf8)) }
        return .json(status: 200, body: MockJSON.envelope(#"{"entries": "#, window.itemsJSON, ", " + etag))
    }
}

import PageProxyCore

/// Flask-AppBuilder's REST API, SAFRS and matrix-synapse's admin API as scripts/real-upstreams found them (branch real14).
extension MockWireFormats {
    /// Flask-AppBuilder's `ModelRestApi`: `{"count": T, "description_columns": {}, "ids": […], "label_columns": {…},
    /// "list_columns": […], "list_title": "…", "order_columns": […], "result": […]}` as Flask's `jsonify` writes it
    /// (compact, sorted keys). No next link: the page lives in the Rison `q` (`MockService.fabPage`).
    package static func fab(_ window: MockWindow) -> MockResponse {
        let ids = window.count == 0 ? "" : (window.offset + 1...window.offset + window.count).map(String.init).joined(separator: ",")
        let head = #"{"count":\#(window.total),"description_columns":{},"ids":[\#(ids)],"label_columns":{"id":"Id","name":"Name"},"#
            + #""list_columns":["id","name"],"list_title":"List Item","order_columns":["id","name"],"result":"#
        return .json(status: 200, body: MockJSON.envelope(head, window.itemsJSON, "}"))
    }

    /// SAFRS: `{"data": […], "included": [], "jsonapi": {"version": "1.0"}, "links": {…}, "meta": {"count", "limit",
    /// "total"}}`, compact with sorted keys, links relative with the request's other parameters first and
    /// `page[offset]`, `page[limit]` last, brackets unencoded. As SAFRS's `_pagination_links` computes them: `last` at
    /// offset `total / limit * limit` (a page past the end when the total is a multiple of the limit), and each of
    /// `first`, `last`, `prev`, `next` left out when equal to another (`next` to `last`: **the page before the one
    /// `last` names has no `next`**).
    package static func safrs(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        let (offset, limit, total) = (window.offset, window.size, window.total)
        let others = context.query.items(excluding: ["page[offset]", "page[limit]"])
        func link(_ at: Int) -> String {
            let pairs = others.map { "\($0.name)=\($0.value)" } + ["page[offset]=\(at)&page[limit]=\(limit)"]
            return context.query.path + "?" + pairs.joined(separator: "&")
        }
        let first = 0
        let last = total / limit * limit
        let own = min(offset / limit * limit, last)
        let next = offset <= last - limit ? offset + limit : last
        let prev = offset > limit ? offset - limit : first
        var links: [(String, Int)] = []
        if own != first { links.append(("first", first)) }
        if own != last { links.append(("last", last)) }
        if next != last { links.append(("next", next)) }
        if prev != first { links.append(("prev", prev)) }
        links.append(("self", offset))
        let linksJSON = links.map { "\(JSONText.string($0.0)):\(JSONText.string(link($0.1)))" }.joined(separator: ",")
        let tail = #","included":[],"jsonapi":{"version":"1.0"},"links":{\#(linksJSON)},"meta":{"count":\#(total),"limit":\#(limit),"total":\#(total)}}"#
        var response = MockResponse.json(status: 200, body: MockJSON.envelope(#"{"data":"#, window.itemsJSON, tail))
        response.setHeader("Content-Type", MockAccept.jsonAPI)
        return response
    }
}

extension MockWireFormats {
    /// matrix-synapse's admin lists: `{"users": […], "total": T, "next_token": "N"}` (compact, in that order), the
    /// next offset as a string, left out on the last page; `Cache-Control: no-cache, no-store, must-revalidate`.
    package static func synapse(_ window: MockWindow) -> MockResponse {
        let next = window.isLast ? "" : #","next_token":"\#(window.offset + window.size)""#
        var response = MockResponse.json(status: 200, body: MockJSON.envelope(#"{"users":"#, window.itemsJSON, #","total":\#(window.total)\#(next)}"#))
        response.setHeader("Cache-Control", "no-cache, no-store, must-revalidate")
        return response
    }
}

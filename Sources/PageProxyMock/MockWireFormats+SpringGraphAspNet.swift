import PageProxyCore

/// Spring Data's `Page`, Microsoft Graph's OData, ASP.NET Core's `X-Pagination` habit and a search page whose items
/// are strings beside an array of facets: shapes `scheme: "auto"` answered as one page, or with the wrong items,
/// before auto14 (review17 B1, B2, B7; attack14 M7, M8, H3).
extension MockWireFormats {
    /// Spring Boot's JSON for a Spring Data `Page<T>`: `{"content": […], "pageable": {…}, "last", "totalPages",
    /// "totalElements", "size", "number", "first", "numberOfElements", "empty"}`, pages numbered from 0 by `page`.
    package static func spring(_ window: MockWindow) -> MockResponse {
        let number = window.page - 1
        let pageable = #""pageable":{"pageNumber":\#(number),"pageSize":\#(window.size),"offset":\#(window.offset),"paged":true,"unpaged":false}"#
        let tail = #",\#(pageable),"last":\#(window.isLast),"totalPages":\#(window.pageCount),"totalElements":\#(window.total),"#
            + #""size":\#(window.size),"number":\#(number),"first":\#(number == 0),"numberOfElements":\#(window.count),"empty":\#(window.count == 0)}"#
        return .json(status: 200, body: MockJSON.envelope(#"{"content":"#, window.itemsJSON, tail))
    }

    /// Microsoft Graph: `{"@odata.context": …, "value": […], "@odata.nextLink": "<absolute URL with $skiptoken>"}`,
    /// the link absent on the last page; `$top` sizes a page.
    package static func graph(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        var next = ""
        if !window.isLast {
            let query = context.query.items(excluding: ["$skiptoken"])
                + [MockQuery.Item(name: "$skiptoken", value: String(window.offset + window.size))]
            next = #","@odata.nextLink":\#(JSONText.string(context.baseURL + context.query.path + "?" + MockQuery.queryString(query)))"#
        }
        let head = #"{"@odata.context":"\#(context.baseURL)/v1.0/$metadata#users","value":"#
        return .json(status: 200, body: MockJSON.envelope(head, window.itemsJSON, next + "}"))
    }

    /// ASP.NET Core's common paging: a bare array and `X-Pagination: {"TotalCount", "PageSize", "CurrentPage",
    /// "TotalPages", "HasNext", "HasPrevious"}`; pages by `pageNumber` and `pageSize` (a `page` is no parameter of it).
    package static func aspNet(_ window: MockWindow) -> MockResponse {
        let header = #"{"TotalCount":\#(window.total),"PageSize":\#(window.size),"CurrentPage":\#(window.page),"#
            + #""TotalPages":\#(window.pageCount),"HasNext":\#(!window.isLast),"HasPrevious":\#(window.page > 1)}"#
        return .json(status: 200, body: window.itemsJSON, extraHeaders: [(name: "X-Pagination", value: header)])
    }

    /// A search answer whose items are strings (`"item-1"`, …) beside an array of facet objects, with a next link
    /// by `page` (null on the last page).
    package static func facets(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        var next = "null"
        if !window.isLast {
            let query = context.query.items(excluding: ["page"]) + [MockQuery.Item(name: "page", value: String(window.page + 1))]
            next = JSONText.string(context.baseURL + context.query.path + "?" + MockQuery.queryString(query))
        }
        let items = (window.offset..<window.offset + window.count).map { JSONText.string(facetItem($0)) }
        let body = #"{"results":[\#(items.joined(separator: ","))],"facets":[{"name":"color","count":\#(window.total)}],"next":\#(next)}"#
        return .json(status: 200, body: Array(body.utf8))
    }

    /// The string item at `index` (0-based) of the facets service.
    package static func facetItem(_ index: Int) -> String { "item-\(index + 1)" }
}

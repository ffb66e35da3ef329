import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// PageProxy and the upstream must read the same page, size, offset and limit (review17 B6): a client's query that
/// repeats one of them, or writes a size that is no number, is refused; an offset page longer than its limit fails.
@Suite struct PaginationQueryCheckTests {
    @Test("a repeated limit, offset, page or size parameter is a 400 naming it", arguments: [
        ("/drf?mock_total=50&limit=5&limit=10", "limit"),
        ("/drf?mock_total=50&offset=0&offset=20", "offset"),
        ("/plain?mock_total=50&page=1&page=3", "page"),
        ("/github?mock_total=50&per_page=5&per_page=10", "per_page"),
        ("/slack?mock_total=50&cursor=&cursor=x", "cursor"),
    ])
    func repeatedParameterIsRefused(target: String, parameter: String) async throws {
        try await Self.expectRefused(target, naming: parameter)
    }

    /// `target` is a 400 `invalid_pagination_parameter` naming `parameter`, and nothing is sent upstream.
    private static func expectRefused(_ target: String, naming parameter: String) async throws {
        try await TestStack.run { stack in
            let response = try await stack.get(target)
            #expect(response.status == 400, "\(response.text)")
            #expect(response.text.contains(#""code":"invalid_pagination_parameter""#), "\(response.text)")
            #expect(response.text.contains(#""parameter":"\#(parameter)""#), "\(response.text)")
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("a size PageProxy numbers pages by that is no whole number of at least 1 is a 400", arguments: [
        ("/plain?mock_total=50&per_page=1OO", "per_page"), ("/plain?mock_total=50&per_page=0", "per_page"), ("/drf?limit=000", "limit"), ("/drf?mock_total=50&limit=abc", "limit"), ("/offset?limit=", "limit"),
    ])
    func unreadableSizeIsRefused(target: String, parameter: String) async throws {
        try await TestStack.run { stack in
            let response = try await stack.get(target)
            #expect(response.status == 400, "\(response.text)")
            #expect(response.text.contains(#""parameter":"\#(parameter)""#), "\(response.text)")
        }
    }

    /// attack16 M1: `page=2abc` was sent as the first page (parseInt and to_i upstreams read 2), then the walk numbered
    /// on from the route's first page: page 2 twice under a 200.
    @Test("a page or offset that is not a whole number is a 400 naming it, sent nowhere", arguments: [
        ("/plain?mock_total=50&page=2abc", "page"), ("/plain?mock_total=50&page=3.0", "page"), ("/plain?mock_total=50&page=1e2", "page"),
        ("/plain?mock_total=50&page=+2", "page"), ("/plain?mock_total=50&page=", "page"), ("/drf?mock_total=50&offset=4.0", "offset"),
        ("/drf?mock_total=50&offset=-5", "offset"),
    ])
    func unreadablePageOrOffsetIsRefused(target: String, parameter: String) async throws {
        try await Self.expectRefused(target, naming: parameter)
    }

    @Test("a whole page number, a negative one, and an offset in digits are walked as before")
    func wholePageAndOffsetAreWalked() async throws {
        try await TestStack.run { stack in
            let page = try await stack.get("/plain?mock_total=50&page=2")
            #expect(page.status == 200, "\(page.text)")
            let offset = try await stack.get("/drf?mock_total=50&offset=40")
            #expect(offset.status == 200, "\(offset.text)")
        }
    }

    @Test("an offset first page holding more items than its limit asked: stepped by what it served, not overlapping pages")
    func offsetPageLongerThanItsLimitIsSteppedByIt() async throws {
        try await TestStack.run { stack in
            // The upstream ignores `limit` and serves its default 10 a page; PageProxy asked for 5 (before fix39: a 502,
            // "holds 10 items where limit=5").
            let response = try await stack.get("/offset?mock_total=50&limit=5&mock_ignores=limit")
            #expect(response.status == 200, "\(response.text)")
            #expect(response.body == MockDataset.mergedJSON(total: 50), "\(response.text)")
            let whole = try await stack.get("/offset?mock_total=50&limit=5")
            #expect(whole.status == 200)
            #expect(whole.body == MockDataset.mergedJSON(total: 50))
        }
    }

    /// retest16 L5: a route whose upstream gives `page=1` made a client's `?page=2` a 400 blaming the client.
    @Test("a parameter given twice because the route's upstream gives it too names the route's upstream as the cause")
    func aRepeatTheRouteCausesNamesTheRoute() throws {
        let pagination = RoutePagination.scheme(.pageNumber(PaginationScheme.PageNumber()))
        let url = try #require(PageURL(string: "http://example.com/items?page=1&page=2"))
        let routes = #expect(throws: PaginationQueryCheck.Refused.self) {
            try PaginationQueryCheck.check(url, pagination: pagination, routeQuery: "page=1")
        }
        #expect(routes?.message.contains("the route's upstream URL gives page itself") == true, "\(String(describing: routes))")
        let clients = #expect(throws: PaginationQueryCheck.Refused.self) {
            try PaginationQueryCheck.check(url, pagination: pagination, routeQuery: "per_page=3")
        }
        #expect(clients?.message.contains("route's") == false)
    }

    /// fix38 LOW: a route that sends a cursor object's members under their own names (MediaWiki's `continue`) reads no
    /// `cursor` parameter: a client's `?cursor=` there is passed on, not refused as the walk's position given twice.
    @Test("a cursorObjectPath route does not take a client's cursor parameter for its position")
    func cursorObjectRouteHasNoCursorParameter() throws {
        var options = PaginationScheme.CursorInBody()
        let url = try #require(PageURL(string: "http://example.com/api.php?cursor=a&cursor=b&limit=5"))
        #expect(throws: PaginationQueryCheck.Refused.self) {
            try PaginationQueryCheck.check(url, pagination: .scheme(.cursorInBody(options)))
        }
        options.cursorObjectPath = JSONPath("continue")
        #expect(PaginationQueryCheck.positionParameter(of: .cursorInBody(options)) == nil)
        try PaginationQueryCheck.check(url, pagination: .scheme(.cursorInBody(options)))
    }
}

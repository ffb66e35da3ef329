import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// review9 B2: a walk that ends on an empty page its total promised (the list shrank) answered with the stated total
/// in `PageProxy-Total` and a window `Link` to a `next` window past the end.
@Suite struct ShortOfTotalAnswerTests {
    @Test func aMergedAnswerShortOfItsTotalStatesNoTotalAndNoNextWindow() async throws {
        let upstream = try ChangingUpstream()
        upstream.set(body: #"[{"v":1}]"#, cacheControl: nil, more: [("X-Total-Count", "1000")])
        upstream.emptyPagesPastTheFirst()
        var options = PaginationScheme.PageNumber()
        options.pageSize = 1
        options.totalItemsHeader = "X-Total-Count"
        let route = RouteConfig.makeForTests(name: "shrunk", upstream: "http://127.0.0.1:\(upstream.server.port)/items", pagination: .pageNumber(options))
        try await TestStack.run(routes: []) { config in
            config.routes = [route]
        } _: { stack in
            let whole = try await stack.get("/shrunk")
            #expect(whole.status == 200)
            #expect(whole.text == #"[{"v":1}]"#)
            #expect(whole.header("PageProxy-Total") == nil)
            // A window the walk could not fill: it reached the empty page.
            let window = try await stack.get("/shrunk?_limit=5")
            #expect(window.text == #"[{"v":1}]"#)
            #expect(window.header("PageProxy-Total") == nil)
            #expect(window.header("Link")?.contains("rel=\"next\"") != true, "\(window.header("Link") ?? "no Link")")
            #expect(upstream.received.count < 40, "\(upstream.received.count) requests, not 1000")
        }
        await upstream.stop()
    }

    /// attack11 L2: pages that hold more items than the stated total (3, with 2 on each of its 2 pages) are not
    /// answered with that total, whole or in a window that reaches past it.
    @Test func aMergedAnswerPastItsTotalStatesNoTotal() async throws {
        let upstream = try ChangingUpstream()
        upstream.set(body: #"[{"v":1,"p":{page}},{"v":2,"p":{page}}]"#, cacheControl: nil, more: [("X-Total-Count", "3")])
        // Its second page is full: the page after it is asked for (the total may be lower than the truth, review17 B10).
        upstream.emptyPages(past: 2)
        var options = PaginationScheme.PageNumber()
        options.pageSize = 2
        options.totalItemsHeader = "X-Total-Count"
        let route = RouteConfig.makeForTests(name: "grown", upstream: "http://127.0.0.1:\(upstream.server.port)/items", pagination: .pageNumber(options))
        // The same upstream detected by an auto route (a total past the page, `?page=` in the URL: page-number).
        var auto = RouteConfig.makeForTests(name: "grown-auto", upstream: "http://127.0.0.1:\(upstream.server.port)/items?page=1", pagination: .pageNumber(options))
        auto.pagination = .auto(itemsPath: nil)
        try await TestStack.run(routes: []) { config in
            config.routes = [route, auto]
        } _: { stack in
            let detected = try await stack.get("/grown-auto")
            #expect(detected.header("PageProxy-Scheme") == "auto->page-number", "\(detected.text)")
            #expect(detected.header("PageProxy-Items") == "4")
            #expect(detected.header("PageProxy-Total") == nil)
            let whole = try await stack.get("/grown")
            #expect(whole.status == 200)
            #expect(whole.header("PageProxy-Items") == "4")
            #expect(whole.header("PageProxy-Total") == nil)
            let window = try await stack.get("/grown?_offset=1&_limit=10")
            #expect(window.header("PageProxy-Items") == "3")
            #expect(window.header("PageProxy-Total") == nil)
            // A window within the total does not contradict it.
            let first = try await stack.get("/grown?_limit=2")
            #expect(first.header("PageProxy-Total") == "3")
        }
        await upstream.stop()
    }

    /// loose12: `_explain`, a merged GET, a HEAD (merged: after the walk) and a repeat (answered from the cache with no
    /// walk when it is one page) state the same total: none where the pages outnumber it, and the page's own where it
    /// is one page. NDJSON sends its head after the first page, before a later one can outnumber the total: it states
    /// the first page's (README "NDJSON").
    @Test(arguments: ["grown", "grown-auto", "one", "one-auto"])
    func everyAnswerStatesTheSameTotal(route name: String) async throws {
        let upstream = try ChangingUpstream()
        let isOnePage = name.hasPrefix("one")
        upstream.set(body: #"[{"v":1,"p":{page}},{"v":2,"p":{page}}]"#, cacheControl: "max-age=60", more: [("X-Total-Count", isOnePage ? "2" : "3")])
        upstream.emptyPages(past: 2)
        var options = PaginationScheme.PageNumber()
        options.pageSize = isOnePage ? 5 : 2
        options.totalItemsHeader = "X-Total-Count"
        var route = RouteConfig.makeForTests(name: name, upstream: "http://127.0.0.1:\(upstream.server.port)/items?page=1", pagination: .pageNumber(options))
        if name.hasSuffix("auto") { route.pagination = .auto(itemsPath: nil) }
        let expected: String? = isOnePage ? "2" : nil
        try await TestStack.run(routes: []) { config in
            config.routes = [route]
        } _: { stack in
            let merged = try await stack.get("/\(name)")
            #expect(merged.status == 200)
            #expect(merged.header("PageProxy-Total") == expected)
            let again = try await stack.get("/\(name)")
            #expect(again.header("PageProxy-Total") == expected, "a repeat")
            let head = try await stack.client().request("/\(name)", method: "HEAD")
            #expect(head.header("PageProxy-Total") == expected, "HEAD")
            let explained = try await stack.get("/\(name)?_explain=1")
            let account = try #require(try JSONSerialization.jsonObject(with: Data(explained.text.utf8)) as? [String: Any])
            #expect((account["total"] as? Int).map(String.init) == expected, "_explain: \(explained.text.prefix(300))")
            let ndjson = try await stack.get("/\(name)", headers: ["Accept": "application/x-ndjson"])
            #expect(ndjson.header("PageProxy-Total") == (isOnePage ? "2" : "3"), "NDJSON")
        }
        await upstream.stop()
    }

    /// review12: a window that starts past an honest total finds nothing, which contradicts nothing: the total stays.
    @Test func aWindowPastTheTotalKeepsIt() async throws {
        try await TestStack.run { stack in
            let past = try await stack.get("/drf?mock_total=45&_offset=50&_limit=5")
            #expect(past.status == 200)
            #expect(past.text == "[]")
            #expect(past.header("PageProxy-Total") == "45")
        }
    }
}

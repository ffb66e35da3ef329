import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// review17 B9: a window (`_offset`/`_limit`) counted its pages, and placed its jump, by the page size asked, though
/// the upstream may serve fewer a page (the mock serves at most 100, as GitHub and GitLab do; JupyterHub 200 under a
/// route's `limit: 500`). A window holds its own items whatever the upstream's cap: a client's size past the route's
/// counts no pages, and a first page shorter than the size counted by, while the list goes on, walks the window again
/// from the first page.
@Suite struct CappedWindowTests {
    static let total = 450

    /// The schemes that walk from the first page, each with its size parameter, the route's own size 10.
    static let followed = [("github", "per_page"), ("gitlab", "per_page"), ("slack", "limit"), ("stripe", "limit")]

    /// Routes whose own size (200) is past the mock's cap, each with a way to tell the list goes on past a short page
    /// (a total, a next link). With neither, a short page under the route's own size ends any walk, whole or windowed
    /// (README: the route's size is the operator's word).
    static var oversized: [TestStack.Route] {
        let size = 200
        var offset = PaginationScheme.Offset(limit: size)
        offset.totalItemsPath = JSONPath("count")
        var pages = PaginationScheme.PageNumber(pageSize: size)
        pages.totalItemsPath = JSONPath("total_count")
        return [
            TestStack.Route(name: "pages-200", mockPath: "/wrapped/items", scheme: .pageNumber(pages), items: JSONPath("items") ?? .root),
            TestStack.Route(name: "drf-200", mockPath: "/drf/items/", scheme: .offset(offset), items: JSONPath("results") ?? .root),
            TestStack.Route(name: "github-200", mockPath: "/github/items", scheme: .linkHeader(.init(pageSize: size))),
        ]
    }

    @Test("a client's size past the route's counts no pages of a window on a scheme that walks from the first page", arguments: followed)
    func aClientsSizeCountsNoPages(route: String, size: String) async throws {
        try await TestStack.run { stack in
            let start = try await stack.get("/\(route)?mock_total=\(Self.total)&\(size)=200&_limit=300")
            #expect(start.status == 200, "\(route): \(start.text)")
            #expect(start.body == MockDataset.page(offset: 0, count: 300, total: Self.total), "\(route): \(start.body.count) bytes")
            let middle = try await stack.get("/\(route)?mock_total=\(Self.total)&\(size)=200&_offset=250&_limit=3&_format=ndjson")
            #expect(middle.status == 200, "\(route): \(middle.text)")
            #expect(middle.text == Self.lines(offset: 250, count: 3), "\(route): \(middle.text)")
        }
    }

    @Test("a route's own size past the upstream's cap: the window walks again from the first page and holds its own items",
          arguments: ["pages-200", "drf-200", "github-200"])
    func aRoutesOwnSizePastTheCap(route: String) async throws {
        try await TestStack.run(routes: SchemeRoutes.all + Self.oversized) { stack in
            for (offset, limit) in [(0, 150), (150, 50), (250, 10), (440, 20)] {
                let merged = try await stack.get("/\(route)?mock_total=\(Self.total)&_offset=\(offset)&_limit=\(limit)")
                #expect(merged.status == 200, "\(route) \(offset)+\(limit): \(merged.text)")
                let count = max(0, min(limit, Self.total - offset))
                #expect(merged.body == MockDataset.page(offset: offset, count: count, total: Self.total), "\(route) \(offset)+\(limit): \(merged.text.prefix(300))")
                let ndjson = try await stack.get("/\(route)?mock_total=\(Self.total)&_offset=\(offset)&_limit=\(limit)&_format=ndjson")
                #expect(ndjson.text == Self.lines(offset: offset, count: count), "\(route) \(offset)+\(limit) NDJSON")
            }
        }
    }

    @Test("the account of such a window is of the walk from the first page, with no failure in it")
    func theExplainedWalkIsTheOneAnswered() async throws {
        try await TestStack.run(routes: SchemeRoutes.all + Self.oversized) { stack in
            let response = try await stack.get("/drf-200?mock_total=\(Self.total)&_offset=150&_limit=50&_explain=1")
            #expect(response.status == 200, "\(response.text)")
            #expect(!response.text.contains("pagination_stuck"), "\(response.text)")
            #expect(response.text.contains("\"outcome\":\"stopped_early\""), "\(response.text)")
        }
    }

    @Test("the retries of the walk that declined, before the window was walked again, are in the metrics (review18 R1)")
    func theDeclinedWalksRetriesAreCounted() async throws {
        try await TestStack.run(routes: SchemeRoutes.all + Self.oversized) { stack in
            let response = try await stack.get("/drf-200?mock_total=\(Self.total)&_offset=150&_limit=50&mock_fault=transient500@1")
            #expect(response.body == MockDataset.page(offset: 150, count: 50, total: Self.total), "\(response.text.prefix(200))")
            let metrics = try await stack.get("/metrics")
            // Both walks meet the fault on their first page: the declined one at offset 0, the window's at 50 (one page
            // of the 100 served before 150; real18 F4), another URL, which the mock fails once too. Without the declined
            // walk's retry counted, 1.
            #expect(metrics.text.contains("pageproxy_upstream_retries_total{route=\"drf-200\"} 2\n"), "\(metrics.text)")
        }
    }

    @Test("a route's own size the upstream serves still jumps straight to the window's page")
    func anHonestSizeStillJumps() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/plain?mock_total=\(Self.total)&_offset=250&_limit=3")
            #expect(response.body == MockDataset.page(offset: 250, count: 3, total: Self.total))
            // Page 26 of the route's pages of 10, after page 25 (a route with no total starts one page before the
            // window's: `SteppedBackWindowPage`), and the list's first page beside them (`WindowSizeProof`).
            #expect(stack.mock.log.count == 3, "\(stack.mock.log.requests.map(\.target))")
        }
    }

    /// The NDJSON lines of items `offset ..< offset + count`.
    static func lines(offset: Int, count: Int) -> String {
        (offset..<(offset + count)).map { String(decoding: MockDataset.item($0), as: UTF8.self) + "\n" }.joined()
    }
}

/// review17 B3: `_max_items`, `_max_pages` and the route's `maxItems` inside a window: the cap counts the window's own
/// items (not those skipped before it), and the answer's `rel="next"` starts after the last item it holds, so that a
/// scrolling client never skips items and never meets an endless run of empty windows.
@Suite struct WindowCapTests {
    static let total = 450

    static func next(_ response: RawHTTPClient.Response) -> String? {
        guard let link = response.header("Link"), let range = link.range(of: ">; rel=\"next\"") else { return nil }
        let target = link[..<range.lowerBound]
        return target.components(separatedBy: "?").last
            .map { $0.split(separator: "&").filter { $0.hasPrefix("_offset=") || $0.hasPrefix("_limit=") }.joined(separator: "&") }
    }

    @Test("a client's cap inside a window: the next window starts after the last item answered")
    func aClientsCap() async throws {
        try await TestStack.run { stack in
            let items = try await stack.get("/plain?mock_total=\(Self.total)&_offset=0&_limit=50&_max_items=20")
            #expect(items.body == MockDataset.page(offset: 0, count: 20, total: Self.total))
            #expect(Self.next(items) == "_offset=20&_limit=50", "\(items.header("Link") ?? "no Link")")
            let pages = try await stack.get("/plain?mock_total=\(Self.total)&_offset=0&_limit=50&_max_pages=1")
            #expect(pages.body == MockDataset.page(offset: 0, count: 10, total: Self.total))
            #expect(Self.next(pages) == "_offset=10&_limit=50", "\(pages.header("Link") ?? "no Link")")
        }
    }

    @Test("_max_items counts the window's items, not those skipped from the page the walk starts at")
    func theCapCountsTheWindowsOwnItems() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/drf?mock_total=\(Self.total)&_offset=15&_limit=10&_max_items=10")
            #expect(response.body == MockDataset.page(offset: 15, count: 10, total: Self.total), "\(response.text.prefix(200))")
            #expect(Self.next(response) == "_offset=25&_limit=10", "\(response.header("Link") ?? "no Link")")
        }
    }

    @Test("a route's maxItems caps each window's answer, not the position in the list: no endless empty windows")
    func aRoutesMaxItems() async throws {
        let capped = SchemeRoutes.all.map { route in
            guard route.name == "github" else { return route }
            var capped = route
            let configure = route.configure
            capped.configure = { config in
                configure(&config)
                config.maxItems = 30
            }
            return capped
        }
        try await TestStack.run(routes: capped) { stack in
            let response = try await stack.get("/github?mock_total=\(Self.total)&_offset=25&_limit=10")
            #expect(response.body == MockDataset.page(offset: 25, count: 10, total: Self.total), "\(response.text.prefix(200))")
            #expect(Self.next(response) == "_offset=35&_limit=10", "\(response.header("Link") ?? "no Link")")
            let further = try await stack.get("/github?mock_total=\(Self.total)&_offset=40&_limit=50")
            #expect(further.body == MockDataset.page(offset: 40, count: 30, total: Self.total), "\(further.text.prefix(200))")
            #expect(Self.next(further) == "_offset=70&_limit=50", "\(further.header("Link") ?? "no Link")")
        }
    }
}

/// review18: the window fixes' own corners.
@Suite struct WindowWalkAgainTests {
    @Test("N1: a window that _max_pages cuts before its first item links to no next window (it would be itself) and says truncated")
    func aCutBeforeTheWindowLinksNowhere() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/github?mock_total=450&_offset=100&_limit=10&_max_pages=2")
            #expect(response.status == 200)
            #expect(response.body == Array("[]".utf8))
            #expect(!(response.header("Link") ?? "").contains("rel=\"next\""), "\(response.header("Link") ?? "")")
            #expect(response.header("PageProxy-Truncated") == "true")
            // NDJSON says it at its end, to a client that takes trailers.
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText(
                "/github?mock_total=450&_offset=0&_limit=100&_max_pages=2&_format=ndjson", headers: ["Connection": "close", "TE": "trailers"]))
            let raw = String(decoding: try await client.readUntilClose(), as: UTF8.self)
            #expect(raw.contains("PageProxy-Truncated: true\r\n"), "\(raw.suffix(200))")
        }
    }

    @Test("N2: walked again, a window over a long list is counted by what the upstream served, not refused at maxPages")
    func aLongListWalkedAgain() async throws {
        try await TestStack.run(routes: SchemeRoutes.all + CappedWindowTests.oversized) { stack in
            // 1,500 pages of 100: past the route's maxPages (1000) if the walk again counted no pages.
            let response = try await stack.get("/pages-200?mock_total=150000&_offset=250&_limit=10")
            #expect(response.status == 200, "\(response.text.prefix(300))")
            #expect(response.body == MockDataset.page(offset: 250, count: 10, total: 150_000))
        }
    }

    /// retest15 N3 / review20 L2: the size a window walked again was counted by is kept for the plan's later requests;
    /// before, an upstream whose cap shrank after that answered every later window short (120 of 150), flagged
    /// truncated, until the plan was dropped.
    @Test("a remembered served size is checked again: the cap lowered between requests walks the window again by the new one",
          arguments: ["pages-200", "drf-200"])
    func aLoweredCapIsLearnedAgain(route: String) async throws {
        try await TestStack.run(routes: CappedWindowTests.oversized) { stack in
            let target = "/\(route)?mock_total=\(CappedWindowTests.total)&_offset=0&_limit=150"
            // One plan for every request (the same target and headers); `PageProxy-Fresh` keeps the memo out of it.
            let first = try await stack.get(target, headers: ["PageProxy-Fresh": "1"])
            #expect(first.body == MockDataset.page(offset: 0, count: 150, total: CappedWindowTests.total), "\(first.text.prefix(200))")
            let requestsBefore = stack.mock.log.count
            stack.mock.setMaxPageSize(40)
            for _ in 0..<2 {
                let later = try await stack.get(target, headers: ["PageProxy-Fresh": "1"])
                #expect(later.status == 200, "\(later.text.prefix(300))")
                #expect(later.body == MockDataset.page(offset: 0, count: 150, total: CappedWindowTests.total), "\(later.header("PageProxy-Items") ?? "-") items")
                #expect(later.header("PageProxy-Truncated") == nil)
            }
            // The first later request walked again by 40 (a first page of 40 and 5 pages), the second at once by it.
            #expect(stack.mock.log.count - requestsBefore <= 1 + 5 + 5, "\(stack.mock.log.count - requestsBefore) upstream requests")
        }
    }

    @Test("N4: a jumped page longer than the size the window counted by is walked again, not answered as other items")
    func aLongerPageIsWalkedAgain() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/plain?mock_total=450&mock_ignores=per_page&_offset=100&_limit=10")
            #expect(response.status == 200, "\(response.text.prefix(300))")
            #expect(response.body == MockDataset.page(offset: 100, count: 10, total: 450), "\(response.text.prefix(200))")
        }
    }
}

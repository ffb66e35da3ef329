import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Where a `page-number` walk ends under the route's own page size (pagenum18): a first page short of it may be the
/// upstream's cap (real18 F1), a full last page may be repeated past the end for ever (walk18: Django's `get_page()`),
/// and a filter that hides items after cutting a page makes a total number more pages than the upstream has (real18 F3).
@Suite struct PageNumberEndsEndToEndTests {
    /// DRF's `PageNumberPagination` with `page_size_query_param` as README writes it: the route asks 100 a page, with no
    /// total (`capped`), and 20 with DRF's `count` (`counted`).
    static var routes: [TestStack.Route] {
        var capped = PaginationScheme.PageNumber(sizeParameter: "page_size")
        capped.pageSize = 100
        var counted = PaginationScheme.PageNumber(sizeParameter: "page_size")
        counted.pageSize = 20
        counted.totalItemsPath = JSONPath("count")
        return SchemeRoutes.all.filter { $0.name == "plain" } + [
            TestStack.Route(name: "capped", mockPath: "/drf-pages/items/", scheme: .pageNumber(capped), items: JSONPath("results")!),
            TestStack.Route(name: "counted", mockPath: "/drf-pages/items/", scheme: .pageNumber(counted), items: JSONPath("results")!),
        ]
    }

    @Test("a first page short of the route's own size under DRF's max_page_size, naming its next: the whole list, not 7 items as all (real18 F1)")
    func aCappedFirstPageIsNotTheWholeList() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let answer = try await stack.get("/capped?mock_total=50&mock_cap=7")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: 50), "\(answer.header("PageProxy-Items") ?? "-") items")
            #expect(answer.header("PageProxy-Truncated") == nil)
            // Eight pages of 7, the last of 1, shorter than the first: it ends the walk.
            #expect(stack.mock.log.count == 8)
        }
    }

    @Test("windows over it hold their own items (real18 F1: `[]` and 7 items)", arguments: [(0, 20), (20, 10), (45, 30)])
    func windowsOverACappedFirstPage(offset: Int, limit: Int) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let answer = try await stack.get("/capped?mock_total=50&mock_cap=7&_offset=\(offset)&_limit=\(limit)")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: offset, count: limit, total: 50), "\(answer.text.prefix(200))")
        }
    }

    @Test("a list shorter than one page, which names no next page, is still one request: whole, not truncated",
          arguments: ["/capped?mock_total=5", "/plain?mock_total=5", "/plain?mock_total=5&mock_past_end=last"])
    func aShortListIsOneRequest(target: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let answer = try await stack.get(target)
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: 5))
            #expect(answer.header("PageProxy-Truncated") == nil)
            #expect(stack.mock.log.count == 1)
        }
    }

    /// walk18: the last page fills the route's own size, and every page past it is that page again.
    @Test("an upstream answering every page past its end with its last, the list a multiple of the route's size: whole, not a 502",
          arguments: [30, 20])
    func aLastPageRepeatedPastTheEndEndsTheWalk(total: Int) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let answer = try await stack.get("/plain?mock_total=\(total)&mock_past_end=last")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: total), "\(answer.header("PageProxy-Items") ?? "-") items")
            #expect(answer.header("PageProxy-Truncated") == nil, "the page far past repeated the last page too: the upstream's habit")
            // The pages, the repeat, and the page far past it (page 1000 past the repeat).
            let targets = stack.mock.log.requests.map(\.target)
            #expect(targets.count == (total + 9) / 10 + 2, "\(targets)")
            #expect(targets.last?.contains("page=\((total + 9) / 10 + 1 + 1000)") == true, "\(targets)")
        }
    }

    @Test("pages repeating with no far repeat (data that repeats with the page size) still end flagged as maybe cut")
    func periodicDataIsStillFlagged() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            // A client's size past the route's 10 (compared from the first page): the page far past is empty.
            let answer = try await stack.get("/plain?mock_total=60&mock_period=20&per_page=20")
            #expect(answer.status == 200)
            #expect(answer.header("PageProxy-Items") == "20")
            #expect(answer.header("PageProxy-Truncated") == "true")
            #expect(stack.mock.log.count == 3)
        }
    }

    /// real18 F3: every fifth item hidden after DRF cut the page, `count` still 250: the first page's 16 numbers 16
    /// pages, DRF's own 20 a page has 13, and answers page 14 with 404.
    @Test("a total numbering pages past the upstream's last, for items it hid: the list, not a 502; no PageProxy-Total")
    func aFilterThatHidItemsEndsAtTheEndStatus() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let answer = try await stack.get("/counted?mock_total=250&mock_hide_every=5")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: 250, hidingEvery: 5), "\(answer.header("PageProxy-Items") ?? "-") items")
            #expect(answer.header("PageProxy-Total") == nil, "200 items: the stated 250 counted hidden ones")
            #expect(answer.header("PageProxy-Truncated") == nil)
            let explained = try await stack.get("/counted?mock_total=250&mock_hide_every=5&_explain=1")
            let account = try #require(try JSONSerialization.jsonObject(with: Data(explained.text.utf8)) as? [String: Any])
            #expect(account["ended"] as? String == "short_of_total", "\(explained.text.prefix(400))")
            // A window over the last items ends there (real18: a 502): it does not link on past them.
            let last = try await stack.get("/counted?mock_total=250&mock_hide_every=5&_offset=190&_limit=50")
            #expect(last.status == 200, "\(last.text.prefix(300))")
            // Items 190–199 of the 200 are ids 238–249 less 240 and 245 (indices 237–249 of the upstream's 250).
            #expect(last.body == MockDataset.page(offset: 237, count: 13, total: 250, hidingEvery: 5), "\(last.text.prefix(200))")
            #expect(last.header("Link")?.contains("rel=\"next\"") != true, "\(last.header("Link") ?? "-")")
        }
    }
}

/// A window's jump that lands on the last full page of an upstream answering every page past its end with its last:
/// its second page repeats its first, which was an upstream ignoring the page number (`502 pagination_stuck`) before
/// the list's first page was asked to tell them apart (pagenum18; real Django `get_page()`, `?_offset=25&_limit=10`).
@Suite struct JumpedRepeatEndToEndTests {
    @Test("a window jumping to the last full page of get_page(): its items, not a 502")
    func aJumpToTheRepeatedLastPage() async throws {
        try await TestStack.run(routes: PageNumberEndsEndToEndTests.routes) { stack in
            let answer = try await stack.get("/plain?mock_total=30&mock_past_end=last&_offset=25&_limit=10")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: 25, count: 5, total: 30), "\(answer.text.prefix(200))")
            #expect(answer.header("PageProxy-Truncated") == nil)
        }
    }

    @Test("an upstream ignoring the page number still fails a jumped window: the list's first page holds the same items")
    func anIgnoredPageNumberStillFails() async throws {
        try await TestStack.run(routes: FABSAFRSSynapseEndToEndTests.routes) { stack in
            // Flask-AppBuilder reads its page only inside `q`: every page is the first (a page-number route from 0, no total).
            let answer = try await stack.get("/fab-open?mock_total=100&_offset=25&_limit=10")
            #expect(answer.status == 502, "\(answer.text.prefix(300))")
            #expect(answer.text.contains("pagination_stuck"), "\(answer.text.prefix(300))")
        }
    }
}

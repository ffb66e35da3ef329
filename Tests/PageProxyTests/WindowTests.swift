import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `_offset` / `_limit` over every scheme against the mock: the window's items, a `Link` back to PageProxy, the
/// total when known, and only the pages the window needs.
@Suite struct WindowTests {
    static let total = 45

    /// At the start, in the middle across a page boundary, at the end (short), and past the end.
    static let windows = [(0, 10), (17, 10), (40, 10), (60, 10)]

    static func expected(offset: Int, limit: Int) -> [UInt8] {
        MockDataset.page(offset: offset, count: limit, total: total)
    }

    @Test("merged windows at the start, middle, end and past the end", arguments: SchemeRoutes.names)
    func mergedWindows(route: String) async throws {
        try await TestStack.run { stack in
            for (offset, limit) in Self.windows {
                let response = try await stack.get("/\(route)?mock_total=\(Self.total)&_offset=\(offset)&_limit=\(limit)")
                #expect(response.status == 200, "\(route) \(offset): \(response.text)")
                #expect(response.body == Self.expected(offset: offset, limit: limit), "\(route) window \(offset)+\(limit)")
                let link = response.header("Link") ?? ""
                #expect(link.contains("rel=\"prev\"") == (offset > 0), "\(route) \(offset): \(link)")
                if offset > 0 {
                    #expect(link.contains("</\(route)?mock_total=\(Self.total)&_offset=\(max(0, offset - limit))&_limit=\(limit)>; rel=\"prev\""))
                }
                // Without a total, a window that ends on a page boundary cannot know it was the last: next may point past
                // the end (which answers []). A window that came short knows.
                if offset + limit <= Self.total - 1 {
                    #expect(link.contains("</\(route)?mock_total=\(Self.total)&_offset=\(offset + limit)&_limit=\(limit)>; rel=\"next\""), "\(route) \(offset): \(link)")
                }
                if offset + limit > Self.total {
                    #expect(!link.contains("rel=\"next\""), "\(route) \(offset): \(link)")
                }
                #expect(response.header("PageProxy-Truncated") == nil)
            }
        }
    }

    @Test("NDJSON windows", arguments: SchemeRoutes.names)
    func ndjsonWindows(route: String) async throws {
        try await TestStack.run { stack in
            for (offset, limit) in Self.windows {
                let response = try await stack.get("/\(route)?mock_total=\(Self.total)&_offset=\(offset)&_limit=\(limit)&_format=ndjson")
                #expect(response.status == 200, "\(route) \(offset): \(response.text)")
                let lines = MockDataset.items(total: Self.total).dropFirst(offset).prefix(limit).map { $0 + [0x0A] }.joined()
                #expect(response.body == Array(lines), "\(route) window \(offset)+\(limit)")
            }
        }
    }

    @Test("only the pages the window needs are fetched", arguments: SchemeRoutes.names)
    func onlyNeededPages(route: String) async throws {
        try await TestStack.run { stack in
            // Items 20-29 are page 3 of 10 items: numbered schemes jump to it (with no total named, to the page before
            // it, to compare the two: `SteppedBackWindowPage`), the others walk pages 1-3. A page-number jump asks the
            // list's first page beside it, for the size the upstream serves (`WindowSizeProof`; attack24 HIGH 1, 2).
            let response = try await stack.get("/\(route)?mock_total=\(Self.total)&_offset=20&_limit=10")
            #expect(response.body == Self.expected(offset: 20, limit: 10))
            let pages = ["wrapped": 2, "drf": 1, "plain": 3, "offset": 2][route] ?? 3
            #expect(stack.mock.log.count == pages, "\(route): \(stack.mock.log.requests.map(\.target))")
        }
    }

    @Test func theTotalIsStatedWhenTheUpstreamStatesIt() async throws {
        try await TestStack.run { stack in
            let drf = try await stack.get("/drf?mock_total=45&_offset=0&_limit=5")
            #expect(drf.header("PageProxy-Total") == "45")
            #expect(drf.header("Link") == "</drf?mock_total=45&_offset=5&_limit=5>; rel=\"next\"")
            // DRF's count says the window at 40 is the last one: ending short of a page, it is.
            let short = try await stack.get("/drf?mock_total=45&_offset=40&_limit=10")
            #expect(short.header("Link") == "</drf?mock_total=45&_offset=30&_limit=10>; rel=\"prev\"")
            // Ending on a full page at the count, it links on: the count may be lower than the truth, as a merged answer
            // asks one more page there (review22 M2). The window after it is empty, and the last.
            let full = try await stack.get("/drf?mock_total=50&_offset=40&_limit=10")
            #expect(full.header("Link") == "</drf?mock_total=50&_offset=30&_limit=10>; rel=\"prev\", </drf?mock_total=50&_offset=50&_limit=10>; rel=\"next\"")
            let past = try await stack.get("/drf?mock_total=50&_offset=50&_limit=10")
            #expect(past.body == Array("[]".utf8))
            #expect(past.header("Link") == "</drf?mock_total=50&_offset=40&_limit=10>; rel=\"prev\"")
            let github = try await stack.get("/github?mock_total=45&_limit=5")
            #expect(github.header("PageProxy-Total") == nil)
        }
    }

    @Test func headerFormsAndOtherControlsTravelInTheLinks() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get(
                "/slack?mock_total=45&_fields=id", headers: ["PageProxy-Offset": "10", "PageProxy-Limit": "5"])
            #expect(response.text == #"[{"id":11},{"id":12},{"id":13},{"id":14},{"id":15}]"#)
            #expect(response.header("Link") == "</slack?mock_total=45&_fields=id&_offset=5&_limit=5>; rel=\"prev\", </slack?mock_total=45&_fields=id&_offset=15&_limit=5>; rel=\"next\"")
        }
    }

    @Test func windowsAreCachedAndRevalidatedLikeOtherAnswers() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-window-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(configure: { $0.cache = CacheConfig(directory: root, maxBytes: 1 << 24) }) { stack in
            let first = try await stack.get("/plain?mock_total=45&_offset=12&_limit=5")
            let other = try await stack.get("/plain?mock_total=45&_offset=13&_limit=5")
            #expect(first.body == Self.expected(offset: 12, limit: 5))
            #expect(other.body == Self.expected(offset: 13, limit: 5))
            #expect(first.header("ETag") != other.header("ETag"))
            let again = try await stack.get("/plain?mock_total=45&_offset=12&_limit=5")
            #expect(again.body == first.body)
            #expect(again.header("ETag") == first.header("ETag"))
            // The two windows share pages 1 and 2 of the cache (page 2's window starts at the page before: no total
            // named): two upstream requests for both, none for the repeat.
            #expect(stack.mock.log.count == 2)
        }
    }

    @Test("a jump past the last page of an upstream that answers it 404 (DRF) is an empty window, not an error")
    func aJumpPastTheEndOfADRFPageNumberRoute() async throws {
        var drf = PaginationScheme.PageNumber()
        drf.sizeParameter = "page_size"
        drf.pageSize = 10
        let route = TestStack.Route(name: "drf-numbers", mockPath: "/drf-pages/items/", scheme: .pageNumber(drf), items: JSONPath("results")!)
        try await TestStack.run(routes: [route]) { stack in
            let past = try await stack.get("/drf-numbers?mock_total=45&_offset=300&_limit=10")
            #expect(past.status == 200, "\(past.text)")
            #expect(past.text == "[]")
            // The page before the window's (the route names no total), answered 404: the list ended before it; the list's
            // first page beside it, which served the size asked (`WindowSizeProof`).
            #expect(
                Set(stack.mock.log.requests.map(\.target))
                    == ["/drf-pages/items/?mock_total=45&page=30&page_size=10", "/drf-pages/items/?mock_total=45&page=1&page_size=10"])
            let end = try await stack.get("/drf-numbers?mock_total=45&_offset=40&_limit=10&_format=ndjson")
            #expect(end.body == Array(MockDataset.items(total: 45).dropFirst(40).map { $0 + [0x0A] }.joined()))
            // Without a window, the same 404 on the first page is still the client's business.
            let plain = try await stack.get("/drf-numbers?mock_total=45&page=31")
            #expect(plain.status == 404)
        }
    }

    @Test("the largest offsets and limits are empty windows, not traps", arguments: SchemeRoutes.names)
    func hugeWindows(route: String) async throws {
        try await TestStack.run { stack in
            let huge = Int.max
            let response = try await stack.get("/\(route)?mock_total=25&_offset=\(huge)&_limit=\(huge)")
            #expect(response.status == 200, "\(route): \(response.text)")
            #expect(response.text == "[]")
            let all = try await stack.get("/\(route)?mock_total=25&_offset=0&_limit=\(huge)")
            #expect(all.body == MockDataset.mergedJSON(total: 25))
            #expect(all.header("Link") == nil)
        }
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// review22 H2: an upstream that caps the page size below the route's (`mock_cap=4` under the routes' 10) and states a
/// total lower than the truth (`mock_count_percent=40`: 12 of 30). The check page past the full stated end holds items,
/// which proves the total low: the pages after it are ordinary pages, whose failures fail the answer and which count
/// against every cap (before: each was another check page, and a failure or a cap there ended a 200 quietly complete).
@Suite struct PastStatedEndEndToEndTests {
    private static let list = "mock_total=30&mock_count_percent=40&mock_cap=4"

    @Test("every item once, no total stated", arguments: ["drf", "wrapped"])
    func everyItemOnce(route: String) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/\(route)?\(Self.list)")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: 30), "\(answer.header("PageProxy-Items") ?? "-") items")
            #expect(answer.header("PageProxy-Total") == nil)
        }
    }

    @Test("a page after the check page fails: 502, not a 200 with 16 of 30 items", arguments: ["drf", "wrapped"])
    func aFailurePastTheCheckPageFails(route: String) async throws {
        try await TestStack.run { stack in
            // Page 5 holds items 16–19: the page after the check page (items 12–15).
            let answer = try await stack.get("/\(route)?\(Self.list)&mock_fault=status500@5")
            #expect(answer.status == 502, "\(answer.status) \(answer.text.prefix(300))")
        }
    }

    @Test("a client's cap met past the check page: truncated, merged and NDJSON", arguments: [
        "/drf?_max_pages=5", "/wrapped?_max_pages=5", "/drf?_max_items=20", "/wrapped?_max_items=20",
        "/drf?_max_pages=5&_format=ndjson", "/wrapped?_max_items=20&_format=ndjson",
    ])
    func aClientCapPastTheCheckPageTruncates(target: String) async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText(target + "&" + Self.list, headers: ["Connection": "close", "TE": "trailers"]))
            let raw = String(decoding: try await client.readUntilClose(), as: UTF8.self)
            #expect(raw.hasPrefix("HTTP/1.1 200"), "\(raw.prefix(300))")
            #expect(raw.contains("PageProxy-Truncated: true\r\n"), "\(target): \(raw.prefix(400))…\(raw.suffix(200))")
        }
    }

    @Test("the route's maxPages met past the check page: 502 too_many_pages, not a 200 with 20 of 30 items")
    func maxPagesPastTheCheckPageIsAnError() async throws {
        var drf = try #require(SchemeRoutes.all.first { $0.name == "drf" })
        drf.configure = { $0.maxPages = 5 }
        try await TestStack.run(routes: [drf]) { stack in
            let answer = try await stack.get("/drf?\(Self.list)")
            #expect(answer.status == 502, "\(answer.status) \(answer.text.prefix(300))")
            #expect(answer.text.contains("too_many_pages"), "\(answer.text.prefix(300))")
        }
    }
}

/// review22 M1 / M2: windows over an upstream whose stated total is at or below the window's start, or whose page size
/// is capped below the route's: a window answers the items at its offset, or none, never others under a 200; and a
/// window that ends on a full page at the stated end links on, since the total may be low (the merged answer asks one
/// more page there).
@Suite struct WindowPastStatedEndEndToEndTests {
    @Test("a page-number jump to the stated end over a capped upstream: the empty window past the end (before: ids 8–11)")
    func aJumpToTheEndOfACappedListIsEmpty() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/wrapped?mock_total=20&mock_cap=4&_offset=20&_limit=5")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: 20, count: 5, total: 20), "\(answer.text.prefix(300))")
            #expect(answer.header("PageProxy-Total") == "20")
        }
    }

    @Test("a page-number jump past a low stated total over a capped upstream: the items at the window's offset (before: ids 8–11)")
    func aJumpPastALowTotalAnswersTheWindowsItems() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/wrapped?mock_total=30&mock_count_percent=40&mock_cap=4&_offset=20&_limit=6")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: 20, count: 6, total: 30), "\(answer.text.prefix(300))")
        }
    }

    @Test("a window ending on a full page at the stated end links on: the total may be low (before: a scroll ended at 20 of 30)",
          arguments: ["drf", "wrapped"])
    func aWindowAtAFullStatedEndLinksOn(route: String) async throws {
        try await TestStack.run { stack in
            let query = "mock_total=30&mock_count_percent=67"  // states 20 of 30: the window 10–19 ends at it
            let end = try await stack.get("/\(route)?\(query)&_offset=10&_limit=10")
            #expect(end.body == MockDataset.page(offset: 10, count: 10, total: 30))
            #expect((end.header("Link") ?? "").contains("</\(route)?\(query)&_offset=20&_limit=10>; rel=\"next\""), "\(end.header("Link") ?? "-")")
            let next = try await stack.get("/\(route)?\(query)&_offset=20&_limit=10")
            #expect(next.body == MockDataset.page(offset: 20, count: 10, total: 30), "\(next.text.prefix(300))")
        }
    }

    @Test("a page-number jump with no total over an upstream capping the size below the route's: no other items (review22 L1: ids 16–19 for 40–43)")
    func aShortJumpWithNoTotalAnswersNoOtherItems() async throws {
        try await TestStack.run { stack in
            // The route's size, 10, is trusted: walked from page 1, the upstream's 4 items are the whole list, as in a
            // merged answer of the route; never the upstream's page 5 for items 40–49.
            let capped = try await stack.get("/plain?mock_total=100&mock_cap=4&_offset=40&_limit=5")
            #expect(capped.status == 200, "\(capped.text.prefix(300))")
            #expect(capped.body == Array("[]".utf8), "\(capped.text.prefix(300))")
            let end = try await stack.get("/plain?mock_total=45&_offset=40&_limit=10")
            #expect(end.body == MockDataset.page(offset: 40, count: 10, total: 45))
        }
    }
}


import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// An offset list that filters its pages after cutting them (an item hidden from this caller) counts positions it never
/// shows: its pages are short where the list goes on. Once the walk's second page repeated the first's last items (a
/// filter, not a cap), a short page no longer ends a list with no total (filter19), the upstream's last page answered
/// again past the end ends it (review27 R4), and a window that the list's end left short of its limit links on to
/// nothing (harness19 W1).
@Suite struct FilteringOffsetListEndToEndTests {
    @Test("a list with no total that filters: every item once, in order, and from the cached pages the same", arguments: [
        // The route's limit 10, every 4th id hidden: 8 at offset 0, then at offset 8 (asked for 8) 9, 10 again (dropped),
        // 11, 13, 14, 15, then 17… at 16, 25… at 24, and the empty page at 32 ends it. Before: the short page at 8 ended
        // the walk, 12 of 23 items under a 200.
        "mock_total=30&mock_hide_every=4",
        // Ids 4, 8 of the first 10: the second page (offset 2, limit 2) lies inside the first's window, asked again at
        // the limit it repeats 4, 8; then every 10 on. Before: 3 of 7 under a 200.
        "mock_total=30&mock_show_every=4",
        // review27 R4: past the end, the upstream's last page again (Django's `get_page()`). Every 4th id hidden: the
        // short page at 24 (25, 26, 27, 29, 30), then at 32 the last page of 8 again: the list's tail, dropped. Before:
        // a 502 (or, its past-end page unfiltered, a 200 with 25…30 twice); with `_max_pages=5`, review27's input, the
        // fifth page is that repeat.
        "mock_total=30&mock_hide_every=4&mock_past_end=last",
        "mock_total=30&mock_hide_every=4&mock_past_end=last&_max_pages=5",
        // Every 3rd id shown: the second page asked again at offset 3 for 10, then 13, 23 (24, 27, 30: short), and at 33
        // the upstream's last page of 10 at offset 20: 21 (of the page before the short one), 24, 27, 30.
        "mock_total=30&mock_show_every=3&mock_past_end=last",
    ], [false, true])
    func aFilteringListWithNoTotalWalksWhole(query: String, sendsFromFiles: Bool) async throws {
        try await TestStack.runWithOwnCacheDirectory(routes: SchemeRoutes.all, sendsFromFiles: sendsFromFiles) { stack, _ in
            let every = { (name: String) in
                query.components(separatedBy: "&").first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
            }
            let expected = Self.ids(MockDataset.mergedJSON(total: 30, hidingEvery: every("mock_hide_every"), showingEvery: every("mock_show_every")))
            let answer = try await stack.get("/offset?" + query)
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(Self.ids(answer.body) == expected, "\(query): \(Self.ids(answer.body))")
            #expect(answer.header("PageProxy-Truncated") == nil, "\(query): truncated")
            // A second walk, from the cached pages (an NDJSON answer is another entry): the same items, no request.
            let requests = stack.mock.log.count
            let again = try await stack.get("/offset?" + query + "&_format=ndjson")
            #expect(again.status == 200)
            #expect(Self.ids(again.body) == expected, "\(query) ndjson: \(Self.ids(again.body))")
            #expect(stack.mock.log.count == requests, "\(stack.mock.log.count - requests) requests for the cached walk")
        }
    }

    @Test("lists with no total that do not filter cost no request more", arguments: [
        // Full pages at 0, 10, 20, then the empty page at 30: 4 requests, as before.
        ("mock_total=30", 30, 4),
        // Full at 0 and 10, short at 20: the end, 3 requests.
        ("mock_total=25", 25, 3),
        // A short first page (7 of 10): the second, asked at offset 7 for 7, is empty: 2 requests, as before.
        ("mock_total=7", 7, 2),
    ])
    func aListThatDoesNotFilterCostsNothingMore(query: String, items: Int, requests: Int) async throws {
        try await TestStack.run { stack in
            stack.mock.log.reset()
            let answer = try await stack.get("/offset?" + query)
            #expect(answer.status == 200)
            #expect(Self.ids(answer.body) == Array(1...items))
            #expect(stack.mock.log.count == requests, "\(query): \(stack.mock.log.count) requests")
        }
    }

    @Test("a window over a filtering list with a total that reaches the list's end links no further (harness19 W1)", arguments: [
        // The merged list: 23 items (30 stated, every 4th id hidden). 20–24 holds its last 3; 23–27 none.
        // Before: `rel="next"` at 25, then at 28 (the stated 30 was taken for the end).
        (20, 5, 3),
        (23, 5, 0),
        (18, 10, 5),
    ])
    func aWindowAtAFilteringListsEndLinksNoFurther(offset: Int, limit: Int, items: Int) async throws {
        try await TestStack.run { stack in
            let merged = try await stack.get("/drf?mock_total=30&mock_hide_every=4")
            let all = Self.ids(merged.body)
            #expect(all.count == 23)
            let window = try await stack.get("/drf?mock_total=30&mock_hide_every=4&_offset=\(offset)&_limit=\(limit)")
            #expect(window.status == 200, "\(window.text.prefix(300))")
            #expect(Self.ids(window.body) == Array(all.dropFirst(offset).prefix(limit)), "\(Self.ids(window.body))")
            #expect(Self.ids(window.body).count == items)
            let link = window.header("Link") ?? ""
            #expect(!link.contains(#"rel="next""#), "\(offset)+\(limit): \(link)")
        }
    }

    @Test("a window over the same list that ends before the list's end still links on")
    func aWindowInsideAFilteringListLinksOn() async throws {
        try await TestStack.run { stack in
            _ = try await stack.get("/drf?mock_total=30&mock_hide_every=4")
            let window = try await stack.get("/drf?mock_total=30&mock_hide_every=4&_offset=15&_limit=5")
            #expect(Self.ids(window.body).count == 5)
            #expect(window.header("Link")?.contains(#"_offset=20&_limit=5>; rel="next""#) == true, "\(window.header("Link") ?? "-")")
        }
    }

    /// The `id` of each item of an answer, in order.
    private static func ids(_ body: [UInt8]) -> [Int] {
        String(decoding: body, as: UTF8.self).components(separatedBy: #"{"id":"#).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }
}

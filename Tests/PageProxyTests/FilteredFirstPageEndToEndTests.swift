import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack14 M6 / retest14 M6: an offset route whose first page is short of its limit because the upstream filtered it
/// after cutting it (an item hidden from this caller), not because it caps the size. The second page, asked right after
/// the first's items, starts with the first's last items again: they are dropped, and the walk steps by the limit.
@Suite struct FilteredFirstPageEndToEndTests {
    @Test("a filter that hides as many on the second page as on the first (a count that looks like a cap): every item once")
    func aMatchingCountIsNoCap() async throws {
        try await TestStack.run { stack in
            // Every 3rd id hidden: the first page of 10 serves 7 (ids 1…10 less 3, 6, 9), the second, asked at offset
            // 7, 7 too (ids 8…17 less 9, 12, 15), starting with 8 and 10 again. Before: taken for a cap of 7, every
            // offset stepped by 7, and items came twice on every page.
            let answer = try await stack.get("/drf?mock_total=60&mock_hide_every=3")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: 60, hidingEvery: 3), "\(answer.header("PageProxy-Items") ?? "-") items")
        }
    }

    @Test("an upstream that caps and filters: every item it shows, once (retest17 W3)")
    func aCapAndAFilterLoseNothing() async throws {
        try await TestStack.run { stack in
            // A cap of 7 under the route's 10, every 4th id hidden: the first page serves 6 (1…7 less 4), the second,
            // asked at offset 6, starts with 7 again. Before: taken for a filter, stepped by the limit 10 over the cap
            // of 7, and 14, 15, 25, 26 were never asked (a 200 `complete` with 19 of 23 items).
            // Also under a total stated too high (45), and with a cap the filter hides nothing under on the first
            // page (cap 3: ids 1…3, then 5, 6 at offset 3). And with served counts under half the limit, whose second
            // page reaches past the first's window all the same (review26 T3): cap 4 (ids 1…3, then 5, 6 at offset 3:
            // none of the first page's, so the walk steps by 3, which the cap never cuts).
            for query in ["mock_cap=7", "mock_cap=7&mock_count_percent=150", "mock_cap=3", "mock_cap=4"] {
                let answer = try await stack.get("/drf?mock_total=30&mock_hide_every=4&" + query)
                #expect(answer.status == 200, "\(query): \(answer.text.prefix(300))")
                #expect(Self.ids(answer.body) == Self.ids(MockDataset.mergedJSON(total: 30, hidingEvery: 4)), "\(query)")
            }
        }
    }

    @Test("a cap under a filter that hides half the first page's window or more: every item it shows, once (review26 T3)")
    func aCapUnderAHeavierFilterLosesNothing() async throws {
        try await TestStack.run { stack in
            // Cap 5, every 2nd id shown: ids 2, 4 (2 served, under half the cap), then at offset 2, asked for 2, id 4
            // again, the first page's last (dropped): the first page holds none past it, so the walk steps by 2, which
            // the cap never cuts.
            let answer = try await stack.get("/drf?mock_total=30&mock_cap=5&mock_show_every=2")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(Self.ids(answer.body) == Self.ids(MockDataset.mergedJSON(total: 30, showingEvery: 2)))
        }
    }

    @Test("a first page that hides more than half its window: every item it shows, once (review26 H1)", arguments: [
        // Ids 4, 8 of 1…10: the second page (offset 2, limit 2) holds 4, inside the first's window; asked again with
        // the limit (offset 2, limit 10) it starts with 4, 8, dropped, and the walk steps by 10. Before: 4 and 8 came
        // twice (a 200), and the walk stepped by 2.
        "mock_total=30&mock_show_every=4",
        "mock_total=30&mock_show_every=3",
        "mock_total=31&mock_show_every=3&mock_count_percent=150",
        // Ids 5, 10: the second page (offset 2, limit 2) is empty. Before: the walk ended there, 2 of 8 under a 200.
        "mock_total=40&mock_show_every=5",
        // Ids 2…10 by 2: half the window, the second page (offset 5, limit 5) starts with 6, 8, 10 again and reaches
        // past the window; stepped by 5.
        "mock_total=30&mock_show_every=2",
    ])
    func aHeavilyFilteredFirstPageRepeatsNothing(query: String) async throws {
        try await TestStack.run { stack in
            let every = query.contains("every=5") ? 5 : query.contains("every=4") ? 4 : query.contains("every=3") ? 3 : 2
            let total = query.contains("total=40") ? 40 : query.contains("total=31") ? 31 : 30
            let answer = try await stack.get("/drf?" + query)
            #expect(answer.status == 200, "\(query): \(answer.text.prefix(300))")
            #expect(Self.ids(answer.body) == Self.ids(MockDataset.mergedJSON(total: total, showingEvery: every)), "\(query)")
        }
    }

    @Test("a first page that shows 3 of its 10: the walk steps by the limit, not by 3 (review26 H2: limit ÷ served times the requests)")
    func aHeavilyFilteredFirstPageStepsByTheLimit() async throws {
        try await TestStack.run { stack in
            stack.mock.log.reset()
            let answer = try await stack.get("/drf?mock_total=100&mock_show_every=3")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(Self.ids(answer.body) == Self.ids(MockDataset.mergedJSON(total: 100, showingEvery: 3)))
            // The first page, the second inside its window, the second asked again with the limit (offset 3), then
            // offsets 8, 15, 23, 32 by what the overlaps show the window holds (5, 7, 8, 9: a cap below the limit is never
            // stepped past, offset20), then by 10 once a page shows the window holds the limit: 16 requests at most
            // (12 before offset20), where stepping by 3 asked 34.
            #expect(stack.mock.log.count <= 16, "\(stack.mock.log.count) requests")
        }
    }

    @Test("a first page that hides more than half its window under a cap: every item it shows, once, in order (offset20)")
    func aCapUnderAFilterHidingMoreThanHalfRepeatsNothing() async throws {
        try await TestStack.run { stack in
            // Cap 9, every 4th id shown: ids 4, 8; the second page (offset 2, limit 2) holds 4, inside the first's
            // window; asked again with the limit (capped to offset 2…10) it repeats 4, 8, and the walk stepped by 10
            // over a cap of 9: id 12 was never asked. It now steps by what the overlaps show (offset20): every item.
            let answer = try await stack.get("/drf?mock_total=30&mock_cap=9&mock_show_every=4")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(Self.ids(answer.body) == Self.ids(MockDataset.mergedJSON(total: 30, showingEvery: 4)), "\(Self.ids(answer.body))")
        }
    }

    @Test("a filtering upstream stating a total too low: every item past it too (walk18's leftover: 18 of 23, Total: 20)")
    func aLowTotalOverAFilterLosesNothing() async throws {
        try await TestStack.run { stack in
            // 30 ids less every 4th (23), `count` 20: the page at offset 16 (limit 8) serves 6 items, 22 positions
            // past a total of 20: the page `limit` on is asked (ids 25…30) rather than ending there.
            let answer = try await stack.get("/drf?mock_total=30&mock_hide_every=4&mock_count_percent=67")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(Self.ids(answer.body) == Self.ids(MockDataset.mergedJSON(total: 30, hidingEvery: 4)), "\(answer.text.prefix(300))")
            #expect(answer.header("PageProxy-Total") != "20", "\(answer.header("PageProxy-Total") ?? "-")")
        }
    }

    /// The `id` of each item of a merged answer, in order (the mock's items carry no other `"id"` member; some hold
    /// numbers `JSONSerialization` refuses).
    private static func ids(_ body: [UInt8]) -> [Int] {
        String(decoding: body, as: UTF8.self).components(separatedBy: #"{"id":"#).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }

    @Test("a cap over items not each unique is shown by counts: the last page short of the total drops it (review26 M2)")
    func aCapOverItemsNotEachUniqueIsShownByCounts() async throws {
        try await TestStack.run { stack in
            // Weekday-like items (no id, period 5) cannot be compared; the second page, full at the first's 6, shows
            // the cap, and the pages numbered by it hold exactly 6: the last one holds 3 where the total (30) said 6,
            // so no total is stated, as for items with ids. Before: numbered "at most", `PageProxy-Total: 30`.
            let answer = try await stack.get("/drf?mock_total=27&mock_count_percent=112&mock_cap=6&mock_period=5")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.array((0..<27).map { Array("{\"day\":\($0 % 5)}".utf8) }), "\(answer.text.prefix(300))")
            #expect(answer.header("PageProxy-Total") == nil, "\(answer.header("PageProxy-Total") ?? "-")")
        }
    }

    @Test("a true cap still steps by what the upstream serves (nothing repeated to drop)")
    func aTrueCapStillSteps() async throws {
        try await TestStack.runCappedAtSix { stack in
            let answer = try await stack.get("/drf?mock_total=40")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.mergedJSON(total: 40), "\(answer.header("PageProxy-Items") ?? "-") items")
        }
    }
}

/// retest14 N2: a window with `_max_pages` over an offset route whose client size is past the upstream's cap walked
/// from offset 0, so it ended before its first item (`[]`, truncated, no `rel="next"`): items past it unreachable.
@Suite struct CappedOffsetWindowEndToEndTests {
    @Test("a window under a client's size past the cap starts at its own offset: its items, within _max_pages")
    func aCappedWindowStartsAtItsOffset() async throws {
        try await TestStack.runCappedAtSix { stack in
            let answer = try await stack.get("/drf?mock_total=40&limit=20&_offset=12&_limit=6&_max_pages=1")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.array(Array(MockDataset.items(total: 40)[12..<18])), "\(answer.text.prefix(200))")
            // A window that spans pages of the cap: every item, in order.
            let wider = try await stack.get("/drf?mock_total=40&limit=20&_offset=13&_limit=10&_max_pages=2")
            #expect(wider.body == MockDataset.array(Array(MockDataset.items(total: 40)[13..<23])), "\(wider.text.prefix(200))")
        }
    }
}

extension TestStack {
    /// The `drf` route (limit 10) over a mock that serves at most 6 items a page.
    fileprivate static func runCappedAtSix(_ body: (TestStack) async throws -> Void) async throws {
        var options = SchemeRoutes.mockOptions
        options.maxPageSize = 6
        try await run(routes: SchemeRoutes.all.filter { $0.name == "drf" }, mockOptions: options, body)
    }
}

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
            // page (cap 3: ids 1…3, then 5, 6 at offset 3).
            for query in ["mock_cap=7", "mock_cap=7&mock_count_percent=150", "mock_cap=3"] {
                let answer = try await stack.get("/drf?mock_total=30&mock_hide_every=4&" + query)
                #expect(answer.status == 200, "\(query): \(answer.text.prefix(300))")
                #expect(Self.ids(answer.body) == Self.ids(MockDataset.mergedJSON(total: 30, hidingEvery: 4)), "\(query)")
            }
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

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// filtwin21: a window (`_offset`/`_limit`) over an offset list that hides items of each page (`mock_show_every`, a cap
/// too) is the slice of the merged answer's items, as `bench/offset-filter-grid.py` checks it. Before, 130 of its cells
/// answered fewer or other items under a 200: the walk again by the count the first page served was cut by its page
/// count (`[12,14]` for `[12,14,16,18,20]`), and a jump whose second page came back empty (a cap of 7, one id in three
/// shown) answered the items at the offset's positions (`[12,15]` where the list held no 11th item).
@Suite struct FilteredOffsetWindowEndToEndTests {
    /// `drf` at the route's `limit` 20, the grid's `drf20`.
    private static var routes: [TestStack.Route] {
        var drf20 = PaginationScheme.Offset()
        drf20.limit = 20
        drf20.totalItemsPath = JSONPath("count")
        return SchemeRoutes.all + [TestStack.Route(name: "drf20", mockPath: "/drf/items/", scheme: .offset(drf20), items: JSONPath("results")!)]
    }

    @Test("a window over a filtered offset list is the slice of the merged answer, merged and NDJSON, asked first", arguments: [
        // The brief's cell: the first page 2…10, the walk again by 5 was cut at 3 pages.
        ("drf?mock_total=30&mock_show_every=2", 5, 5),
        ("offset?mock_total=30&mock_show_every=2", 3, 12),
        ("drf?mock_total=30&mock_show_every=3", 0, 5),
        // offset20 M1 (worse after its step): limit 20, every 3rd shown, 9 of 12.
        ("drf20?mock_total=47&mock_show_every=3", 3, 12),
        ("drf20?mock_total=100&mock_show_every=2", 10, 10),
        ("offset?mock_total=47&mock_show_every=3", 10, 10),
        // A cap of 7 under one id in three (with a total): the jump's second page is empty, its third shows the filter.
        ("drf?mock_total=47&mock_cap=7&mock_show_every=3", 10, 10),
        ("drf?mock_total=100&mock_cap=7&mock_show_every=3", 3, 12),
        // Numbered to a total far past `maxPages` once the filter shows: cut there, the window's items come first (a
        // 502 `too_many_pages` at the second page before the cut).
        ("drf?mock_total=100000&mock_show_every=2", 5, 5),
    ])
    func aWindowIsASliceOfTheMergedAnswer(target: String, offset: Int, limit: Int) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let query = target.split(separator: "?")[1]
            let value = { (name: String) in
                query.split(separator: "&").first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
            }
            let all = IgnoredLimitEndToEndTests.ids(
                MockDataset.mergedJSON(total: value("mock_total") ?? 0, hidingEvery: value("mock_hide_every"), showingEvery: value("mock_show_every")))
            let expected = Array(all.dropFirst(offset).prefix(limit))
            // Asked first, before any walk of the list: nothing remembered says it filters.
            let window = try await stack.get("/\(target)&_offset=\(offset)&_limit=\(limit)")
            #expect(window.status == 200, "\(target): \(window.text.prefix(300))")
            #expect(IgnoredLimitEndToEndTests.ids(window.body) == expected, "\(target) \(offset)+\(limit): \(IgnoredLimitEndToEndTests.ids(window.body))")
            let stream = try await stack.get("/\(target)&x=1&_offset=\(offset)&_limit=\(limit)&_format=ndjson")
            #expect(stream.status == 200, "\(target) ndjson: \(stream.text.prefix(300))")
            #expect(IgnoredLimitEndToEndTests.ids(stream.body) == expected,
                "\(target) \(offset)+\(limit) ndjson: \(IgnoredLimitEndToEndTests.ids(stream.body))")
            // Once a walk showed the list filtered, a window of it walks from the first page at once: the same items.
            let later = try await stack.get("/\(target)&_offset=\(offset)&_limit=\(limit)&x=2")
            #expect(IgnoredLimitEndToEndTests.ids(later.body) == expected, "\(target) later: \(IgnoredLimitEndToEndTests.ids(later.body))")
        }
    }

    /// fix22b (filtwin21 G2): a window held within the items of the page at its jump, on a list no walk showed filtered,
    /// answered the items at the offset's positions (`[102…110]` for `[202…210]`): the walk again by the count the first
    /// page served met its item limit there. It now takes the page after it, which tells a cap from a filter, first.
    @Test("a window within the page at its jump, asked first, is the slice of the merged answer", arguments: [
        ("drf?mock_total=1000&mock_show_every=2", 100, 5),
        ("offset?mock_total=1000&mock_show_every=2", 100, 5),
        ("drf?mock_total=1000&mock_hide_every=4", 100, 3),
        ("offset?mock_total=1000&mock_hide_every=4", 100, 3),
        // A cap of 7 under one id in three: the page after the first is empty, the one asked again shows the filter.
        ("drf?mock_total=1000&mock_cap=7&mock_show_every=3", 30, 1),
    ])
    func aWindowWithinThePageAtItsJump(target: String, offset: Int, limit: Int) async throws {
        try await aWindowIsASliceOfTheMergedAnswer(target: target, offset: offset, limit: limit)
    }

    /// fix22b (filtwin21 G3): the jump to `offset=20` over ids 1–30 with every 15th hidden holds 21–29, short of the
    /// total; the page after it (position 29) holds none, though the total counts it. Taken for the list's end, the window
    /// was `[26…29]`, not counting the id 15 hidden before it; the truth is `[27,28,29]`.
    @Test("a window whose jump's second page is empty inside the stated total walks from the first page", arguments: [
        ("drf?mock_total=30&mock_hide_every=15", 25, 10),
        ("drf?mock_total=45&mock_hide_every=15", 40, 10),
        // Within the page at its jump too (G2's path): `[42,43]` for `[44]`.
        ("drf?mock_total=45&mock_hide_every=15", 41, 2),
    ])
    func anEmptySecondPageInsideTheTotalShowsAFilter(target: String, offset: Int, limit: Int) async throws {
        try await aWindowIsASliceOfTheMergedAnswer(target: target, offset: offset, limit: limit)
    }

    /// Once a walk showed the list filtered, a window of it walks from the first page at once.
    @Test("a window within one page of a list a walk showed filtered walks from the first page")
    func aListKnownFilteredPlansFromTheStart() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let merged = try await stack.get("/drf?mock_total=1000&mock_show_every=2")
            #expect(IgnoredLimitEndToEndTests.ids(merged.body).count == 500)
            let window = try await stack.get("/drf?mock_total=1000&mock_show_every=2&_offset=100&_limit=5")
            #expect(IgnoredLimitEndToEndTests.ids(window.body) == [202, 204, 206, 208, 210], "\(IgnoredLimitEndToEndTests.ids(window.body))")
        }
    }

    @Test("plain and capped lists keep their jump: no page from the list's start", arguments: [
        "drf?mock_total=100",
        "offset?mock_total=100",
        // A cap of 7 (no filter): the jump's page is short, walked again from near the offset by the cap.
        "drf?mock_total=100&mock_cap=7",
    ])
    func aListThatDoesNotFilterKeepsItsJump(target: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            stack.mock.log.reset()
            // (A window within the page at its jump takes the page after it too: a cap, not a filter, fix22b.)
            for limit in [10, 3] {
                let window = try await stack.get("/\(target)&_offset=50&_limit=\(limit)")
                #expect(window.status == 200)
                #expect(IgnoredLimitEndToEndTests.ids(window.body) == Array(51..<51 + limit), "\(target): \(IgnoredLimitEndToEndTests.ids(window.body))")
            }
            let fromStart = stack.mock.log.requests.filter { $0.target.contains("offset=0&") || $0.target.hasSuffix("offset=0") }
            #expect(fromStart.isEmpty, "\(target): \(fromStart.map(\.target))")
        }
    }

    /// fix21a (review21 HIGH 1 and 2): over a cap of 7 under one id in three, on an offset route that names no total, a
    /// window's first page (the jump, or the page before the window's) holds 2 items, and the page asked after them for
    /// as many, positions 12–13, holds none. That empty page was the list's end: `[]` (a merge of two fixes: the page
    /// before the window's, short) and `[12,15]` (the jump walked again by what it served) under a 200.
    @Test("a window over a capped, filtered list with no total is not ended by an empty page after a short one", arguments: [
        ("offset?mock_total=100&mock_cap=7&mock_show_every=3", 25, 10),
        ("offset?mock_total=100&mock_cap=7&mock_show_every=3", 10, 10),
        ("offset?mock_total=100&mock_cap=7&mock_show_every=3", 3, 12),
        ("offset?mock_total=47&mock_cap=7&mock_show_every=3", 10, 10),
        // A window of 5 counted 2 pages from the page before it: the page asked again is not cut at that count.
        ("offset?mock_total=300&mock_cap=7&mock_show_every=3", 20, 5),
    ])
    func anEmptyPageAfterAShortOneIsAskedAgain(target: String, offset: Int, limit: Int) async throws {
        try await aWindowIsASliceOfTheMergedAnswer(target: target, offset: offset, limit: limit)
    }

    /// filtwin21 G1: with no total, a first page that served under half its limit was followed by a page asked for as
    /// many at the offset after them; a filter hid every item there, and that empty page ended the list (`[5,10]` of
    /// every 5th id of 30, `[4]` of every 4th under a cap of 7). It is asked again with the limit.
    @Test("a merged answer over a sparse filter with no total is not ended by an empty second page", arguments: [
        ("offset?mock_total=30&mock_show_every=5", Array(stride(from: 5, through: 30, by: 5))),
        ("offset?mock_total=30&mock_cap=7&mock_show_every=4", Array(stride(from: 4, through: 28, by: 4))),
        ("offset?mock_total=3", [1, 2, 3]),
    ])
    func anEmptySecondPageIsAskedAgain(target: String, expected: [Int]) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let merged = try await stack.get("/\(target)")
            #expect(merged.status == 200)
            #expect(IgnoredLimitEndToEndTests.ids(merged.body) == expected, "\(target): \(IgnoredLimitEndToEndTests.ids(merged.body))")
        }
    }

    /// review21 M4: a window walked from the list's first item, its page count lifted to `maxPages` once the filter
    /// showed, counts its pages as the merged walk does (`PageWalker.chargedCount`): the pages asked again while stepping
    /// are not counted. Before, `_offset=0&_limit=33` failed `too_many_pages` where the merged answer held the 33 items.
    @Test("a lifted window counts maxPages as the merged walk of the same list does")
    func aLiftedWindowCountsMaxPagesAsTheMergedWalk() async throws {
        var offset = try #require(SchemeRoutes.all.first { $0.name == "offset" })
        offset.configure = { $0.maxPages = 12 }
        try await TestStack.run(routes: [offset]) { stack in
            let all = Array(stride(from: 3, through: 99, by: 3))
            let window = try await stack.get("/offset?mock_total=100&mock_show_every=3&_offset=0&_limit=33")
            #expect(window.status == 200, "\(window.text.prefix(300))")
            #expect(IgnoredLimitEndToEndTests.ids(window.body) == all, "\(IgnoredLimitEndToEndTests.ids(window.body))")
            let merged = try await stack.get("/offset?mock_total=100&mock_show_every=3&x=1")
            #expect(IgnoredLimitEndToEndTests.ids(merged.body) == all)
        }
    }

    /// fix22b (review21 HIGH 3): with no total, a page short of its `limit` ends the list, and a filter that leaves a
    /// full first page and then hides one item of a page is taken for the end (`offset?mock_total=30&mock_hide_every=15`:
    /// 19 of 28 items under a `200`). A route that says its upstream filters (`filteredPages`) ends only at an empty page,
    /// and its windows walk from the first page.
    @Test("a route with filteredPages is not ended by a short page, and its windows are slices of the merged answer")
    func filteredPagesRoute() async throws {
        var options = PaginationScheme.Offset()
        options.limit = SchemeRoutes.pageSize
        options.filteredPages = true
        let route = TestStack.Route(name: "filtered", mockPath: "/offset/items", scheme: .offset(options), items: JSONPath("items")!)
        try await TestStack.run(routes: [route]) { stack in
            let truth = (1...30).filter { $0 % 15 != 0 }
            let merged = try await stack.get("/filtered?mock_total=30&mock_hide_every=15")
            #expect(merged.status == 200)
            #expect(IgnoredLimitEndToEndTests.ids(merged.body) == truth, "\(IgnoredLimitEndToEndTests.ids(merged.body))")
            for (offset, limit) in [(25, 10), (3, 12), (14, 1)] {
                let window = try await stack.get("/filtered?mock_total=30&mock_hide_every=15&_offset=\(offset)&_limit=\(limit)&x=\(offset)")
                #expect(IgnoredLimitEndToEndTests.ids(window.body) == Array(truth.dropFirst(offset).prefix(limit)),
                    "\(offset)+\(limit): \(IgnoredLimitEndToEndTests.ids(window.body))")
            }
            // A first page short under the filter: its last items again on the second page are dropped, not taken for
            // the list's tail again past its end (which ended every such list at its second page).
            for (query, shown) in [("mock_show_every=2", (1...30).filter { $0 % 2 == 0 }), ("mock_hide_every=4", (1...30).filter { $0 % 4 != 0 })] {
                let answer = try await stack.get("/filtered?mock_total=30&\(query)")
                #expect(IgnoredLimitEndToEndTests.ids(answer.body) == shown, "\(query): \(IgnoredLimitEndToEndTests.ids(answer.body))")
            }
            // A plain list: every item, ended by the empty page after its short last one (one request more).
            stack.mock.log.reset()
            let plain = try await stack.get("/filtered?mock_total=25")
            #expect(IgnoredLimitEndToEndTests.ids(plain.body) == Array(1...25))
            #expect(stack.mock.log.count == 4, "\(stack.mock.log.requests.map(\.target))")
        }
    }

    /// fix22b (review21 M3): a filter that hides fewer than half of a page (every 3rd id) leaves a first page of 7 of 10,
    /// and the walk steps by 7 positions with a `limit` of 7: 15 requests for 100 positions, 10 pages of the list.
    /// `maxPages: 12` refused it at the first page (the estimate counted by the 7 items served) and would have at the
    /// second (each page of 7 counted one). A cap of 7 (no filter) is still the upstream's page, counted one each.
    @Test("maxPages counts a filter's pages of fewer positions by their positions", arguments: ["drf", "offset"])
    func maxPagesCountsSmallFilteredPagesByPositions(route name: String) async throws {
        var route = try #require(SchemeRoutes.all.first { $0.name == name })
        route.configure = { $0.maxPages = 12 }
        try await TestStack.run(routes: [route]) { stack in
            let answer = try await stack.get("/\(name)?mock_total=100&mock_hide_every=3")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(IgnoredLimitEndToEndTests.ids(answer.body) == (1...100).filter { $0 % 3 != 0 })
            let capped = try await stack.get("/\(name)?mock_total=100&mock_cap=7")
            #expect(capped.status == 502)
            #expect(capped.text.contains("too_many_pages"), "\(capped.text.prefix(300))")
        }
    }

    /// review20 M5: `maxPages` counts the pages of the list by the route's `limit`. A walk that steps by what a filtered
    /// upstream's window is shown to hold asks some positions twice; those pages are not counted, up to `maxPages` of
    /// them. Before: 34 of 100 positions shown took 13 requests, and `maxPages: 12` failed `too_many_pages` (12 answered
    /// it before offset20's step).
    @Test("maxPages counts the list's pages: a filtered walk stepped by smaller steps still fits, a longer list does not")
    func maxPagesCountsTheListsPages() async throws {
        var drf = try #require(SchemeRoutes.all.first { $0.name == "drf" })
        drf.configure = { $0.maxPages = 12 }
        try await TestStack.run(routes: [drf]) { stack in
            stack.mock.log.reset()
            let answer = try await stack.get("/drf?mock_total=100&mock_show_every=3")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(IgnoredLimitEndToEndTests.ids(answer.body) == Array(stride(from: 3, through: 99, by: 3)))
            #expect(stack.mock.log.count > 12, "\(stack.mock.log.count) requests: the stepping asked no page again")
            // Still a runaway guard: 200 positions are 20 pages of the list.
            let longer = try await stack.get("/drf?mock_total=200&mock_show_every=3")
            #expect(longer.status == 502)
            #expect(longer.text.contains("too_many_pages"), "\(longer.text.prefix(300))")
            // And a window walked from the first page whose items lie past 12 pages: a 502, not a cut window.
            let far = try await stack.get("/drf?mock_total=1000&mock_show_every=2&_offset=100&_limit=12")
            #expect(far.status == 502)
            #expect(far.text.contains("too_many_pages"), "\(far.text.prefix(300))")
        }
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// retest19 F1: an offset upstream that ignores `limit` (serving its own 20) under a filter, where the overlap the pages
/// show was not compared: on the last page of a 2-page walk (the second page, exempt as the one that holds a filtered
/// first page's items again by design), or after a first page the filter left exactly full (pages stepped by the limit
/// were never compared). Both were a `200` with items twice, where README promises such an upstream fails.
@Suite struct IgnoredLimitLastPageEndToEndTests {
    /// The mock's own size 20 over the route's `limit` of 10.
    private static func run(_ body: (TestStack) async throws -> Void) async throws {
        var options = SchemeRoutes.mockOptions
        options.pageSize = 20
        try await TestStack.run(mockOptions: options, body)
    }

    @Test("an ignored limit overlapping on a 2-page walk's last page or after a full first page fails (before: 200, items twice)", arguments: [
        // Ids 1…13 less 3, 6, 9, 12: the first page (20 served for 10) holds 9, the second at offset 9 (asked for 9)
        // 10, 11, 13 again: the first's last 3, where a filter hiding 1 of its 10 explains 1. Before: 12 items for 9.
        "drf?mock_total=13&mock_hide_every=3&mock_ignores=limit",
        // Even ids of 40: the first page holds 2…20, exactly 10, the next at offset 10 12…30. Before: 35 items for 20.
        "drf?mock_total=40&mock_ignores=limit&mock_show_every=2",
        // The same with no total (pages asked one after another).
        "offset?mock_total=40&mock_ignores=limit&mock_show_every=2",
    ])
    func anOverlapIsCaught(target: String) async throws {
        try await Self.run { stack in
            let answer = try await stack.get("/" + target)
            #expect(answer.status == 502, "\(target): \(answer.status) \(IgnoredLimitEndToEndTests.ids(answer.body))")
            #expect(answer.text.contains(#""code":"pagination_stuck""#) && answer.text.contains("starts with items of the page before again"),
                "\(target): \(answer.text.prefix(400))")
        }
    }

    @Test("an upstream that honours limit under the same filters answers every item once, with the same requests", arguments: [
        // As many requests as main's build made (offsets 0, 7; 0, 5 … 35; 0, 5 … 40; 0 … 40 by 10, the last the check
        // page past a full stated end): the check compares the pages it has, and asks for none.
        ("drf", 13, 3, nil as Int?, 2), ("drf", 40, nil, 2, 8), ("offset", 40, nil, 2, 9), ("drf", 40, nil, nil, 5),
    ])
    func anHonouredLimitStillWalks(route: String, total: Int, hidingEvery: Int?, showingEvery: Int?, requests: Int) async throws {
        try await Self.run { stack in
            stack.mock.log.reset()
            var query = "mock_total=\(total)"
            if let hidingEvery { query += "&mock_hide_every=\(hidingEvery)" }
            if let showingEvery { query += "&mock_show_every=\(showingEvery)" }
            let answer = try await stack.get("/\(route)?\(query)")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(IgnoredLimitEndToEndTests.ids(answer.body) == IgnoredLimitEndToEndTests.ids(MockDataset.mergedJSON(total: total, hidingEvery: hidingEvery, showingEvery: showingEvery)))
            #expect(stack.mock.log.count == requests, "\(stack.mock.log.count) requests")
        }
    }
}

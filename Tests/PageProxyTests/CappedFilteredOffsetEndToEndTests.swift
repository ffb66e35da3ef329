import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// offset20 (retest19's 48 cells, old): an offset upstream that caps its page below the route's `limit` and hides more
/// than half of each page's window (`mock_cap=7&mock_show_every=3`). The first page shows 2 of its 7 positions, the
/// second lies inside it and is asked again with the `limit`; the walk then stepped by the `limit` (10) over windows of 7,
/// and the 3 positions between were never asked: a `200` with ids 12, 21, 30 … missing. It now steps by what the pages
/// show the window holds (`FilteredWindowStep`), dropping the items a page holds again of the page before.
@Suite struct CappedFilteredOffsetEndToEndTests {
    @Test("a cap under a filter that hides more than half of each page: every item once, in order (merged and NDJSON)", arguments: [
        "drf?mock_total=30&mock_cap=7&mock_show_every=3",
        "offset?mock_total=30&mock_cap=7&mock_show_every=3",
        "drf?mock_total=100&mock_cap=7&mock_show_every=3",
        "offset?mock_total=47&mock_cap=7&mock_show_every=3",
        // The upstream answering past its end with its last page: the list's tail again ends the walk.
        "offset?mock_total=30&mock_cap=7&mock_show_every=3&mock_past_end=last",
    ])
    func aCapUnderAFilterLosesNothing(target: String) async throws {
        try await TestStack.run { stack in
            let query = target.split(separator: "?")[1]
            let value = { (name: String) in
                query.split(separator: "&").first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
            }
            let expected = IgnoredLimitEndToEndTests.ids(
                MockDataset.mergedJSON(total: value("mock_total") ?? 0, showingEvery: value("mock_show_every")))
            let answer = try await stack.get("/" + target)
            #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
            #expect(IgnoredLimitEndToEndTests.ids(answer.body) == expected, "\(target): \(IgnoredLimitEndToEndTests.ids(answer.body))")
            let stream = try await stack.get("/" + target + "&_format=ndjson&x=1")
            #expect(stream.status == 200)
            #expect(IgnoredLimitEndToEndTests.ids(stream.body) == expected, "\(target) ndjson: \(IgnoredLimitEndToEndTests.ids(stream.body))")
            // The first items, cut by the client's `_max_items`, and a window over the middle of the list.
            let head = try await stack.get("/" + target + "&_max_items=5&x=2")
            #expect(IgnoredLimitEndToEndTests.ids(head.body) == Array(expected.prefix(5)), "\(target) _max_items: \(IgnoredLimitEndToEndTests.ids(head.body))")
            let window = try await stack.get("/" + target + "&_offset=3&_limit=4")
            #expect(IgnoredLimitEndToEndTests.ids(window.body) == Array(expected.dropFirst(3).prefix(4)),
                "\(target) window: \(IgnoredLimitEndToEndTests.ids(window.body))")
        }
    }
}

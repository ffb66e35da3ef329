import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// fix39: an offset upstream that serves a size of its own, more items a page than the `limit` asked (it ignores
/// `limit`, `mock_ignores=limit`, or reads it no lower than a size of its own, `mock_limit_floor=N`). Its first page
/// holding more than asked failed the walk with `502 pagination_stuck`; the walk now steps by what the pages show the
/// upstream serves, dropping each page's lead that the page before held (a filter makes the pages overlap), so the
/// list is whole, with no item twice (`FilteredWindowStep.start(ownSize:offset:)`).
@Suite struct OwnPageSizeOffsetEndToEndTests {
    /// The mock's own size `pageSize` (20 over the route's `limit` of 10 unless said).
    private static func run(pageSize: Int = 20, _ body: (TestStack) async throws -> Void) async throws {
        var options = SchemeRoutes.mockOptions
        options.pageSize = pageSize
        try await TestStack.run(mockOptions: options, body)
    }

    /// The mock's whole list for `target`'s `mock_total`, `mock_hide_every` and `mock_show_every`.
    private static func expected(_ target: String) -> [Int] {
        let query = target.split(separator: "?")[1]
        let value = { (name: String) in
            query.split(separator: "&").first { $0.hasPrefix(name + "=") }.flatMap { Int($0.dropFirst(name.count + 1)) }
        }
        return IgnoredLimitEndToEndTests.ids(
            MockDataset.mergedJSON(total: value("mock_total") ?? 0, hidingEvery: value("mock_hide_every"), showingEvery: value("mock_show_every")))
    }

    /// `target` merged, as NDJSON, cut by `_max_items`, and in a window at the list's head and past its first page.
    private static func expectWhole(_ target: String, on stack: TestStack) async throws {
        let expected = Self.expected(target)
        let answer = try await stack.get("/" + target)
        #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
        #expect(IgnoredLimitEndToEndTests.ids(answer.body) == expected, "\(target): \(IgnoredLimitEndToEndTests.ids(answer.body))")
        let stream = try await stack.get("/" + target + "&_format=ndjson&x=1")
        #expect(stream.status == 200)
        #expect(IgnoredLimitEndToEndTests.ids(stream.body) == expected, "\(target) ndjson: \(IgnoredLimitEndToEndTests.ids(stream.body))")
        let head = try await stack.get("/" + target + "&_max_items=5&x=2")
        #expect(IgnoredLimitEndToEndTests.ids(head.body) == Array(expected.prefix(5)), "\(target) _max_items: \(IgnoredLimitEndToEndTests.ids(head.body))")
        for (offset, limit) in [(3, 4), (23, 6)] {
            let window = try await stack.get("/" + target + "&_offset=\(offset)&_limit=\(limit)&x=3")
            #expect(window.status == 200, "\(target) window \(offset): \(window.text.prefix(300))")
            #expect(IgnoredLimitEndToEndTests.ids(window.body) == Array(expected.dropFirst(offset).prefix(limit)),
                "\(target) window \(offset): \(IgnoredLimitEndToEndTests.ids(window.body))")
        }
    }

    @Test("an upstream serving 20 a page for a limit of 10: every item once, in order", arguments: [
        // Pages of 20, stepped by 20 (before: 502, "holds 20 items where limit=10 asked for at most 10").
        "drf?mock_total=45&mock_ignores=limit",
        "offset?mock_total=45&mock_ignores=limit",
        // A limit read no lower than 15: 15 a page.
        "drf?mock_total=45&mock_limit_floor=15",
        "offset?mock_total=45&mock_limit_floor=15",
        // Every 4th id hidden: the first page holds 15 of its 20 positions, the second (at 15) 18, 19, 20 again, dropped.
        "drf?mock_total=47&mock_ignores=limit&mock_hide_every=4",
        "offset?mock_total=47&mock_ignores=limit&mock_hide_every=4",
        // Every other id shown: 10 of 20, not more than asked: not seen (`IgnoredLimitLastPageEndToEndTests`, a 502).
        // Past its end the upstream answers with its last page: the list's tail again ends the walk.
        "offset?mock_total=47&mock_ignores=limit&mock_hide_every=4&mock_past_end=last",
    ])
    func anOwnSizeIsWalkedWhole(target: String) async throws {
        try await Self.run { stack in try await Self.expectWhole(target, on: stack) }
    }

    @Test("an own size one over the step (7 served for a limit of 5, one item hidden): that item is not handed out twice")
    func anOverlapOfOneItemIsDropped() async throws {
        // fix34 accepted it: stepped by 6 over windows of 7, one item a page came twice under a 200.
        try await Self.run(pageSize: 7) { stack in
            try await Self.expectWhole("drf?limit=5&mock_total=40&mock_ignores=limit&mock_hide_every=4", on: stack)
            try await Self.expectWhole("offset?limit=5&mock_total=40&mock_ignores=limit&mock_hide_every=4", on: stack)
        }
    }

    @Test("a floor that serves fewer than asked is a cap: walked by the served size")
    func aFloorBelowTheLimitIsACap() async throws {
        // limit=10 read as 8 (a multiple of 8): a first page of 8, the second asked for 8.
        try await Self.run { stack in
            try await Self.expectWhole("drf?mock_total=45&mock_limit_floor=8", on: stack)
            try await Self.expectWhole("offset?mock_total=45&mock_limit_floor=8", on: stack)
        }
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// review26 L1: an offset upstream that filters its pages after cutting them and does not take a `limit` below its own
/// size (it ignores `limit`, serving its own size, or reads it no lower than a size of its own). The walk's second page,
/// asked with the first's short count as its `limit`, is cut wider than asked, and the pages stepped by that count
/// overlap. When the filter leaves no page more items than asked, nothing showed it: a `200` with the overlap's items
/// twice. Now such a list fails as one the walk cannot continue, never a `200` with items repeated or missing.
@Suite struct IgnoredLimitEndToEndTests {
    @Test("an upstream that ignores or floors limit under a filter: never a 200 with items twice (review26 L1)", arguments: [
        // limit=10 ignored (the mock's own size is the route's 10), every 4th id hidden: ids 1…10 less 4, 8 (8), then at
        // offset 8 "limit=8" ids 9…18 less 12, 16 (9, 10 again, dropped), then at offset 16 ids 17…26: 17, 18 again.
        // Before: a 200 with 17, 18, 25, 26 twice (27 items for 23).
        "drf?mock_total=30&mock_ignores=limit&mock_hide_every=4",
        // The same on a route with no total (pages asked one after another).
        "offset?mock_total=30&mock_ignores=limit&mock_hide_every=4",
        // A limit read no lower than 10 (`limit=8` served as 10): the same pages.
        "drf?mock_total=30&mock_limit_floor=10&mock_hide_every=4",
        // Half of each window hidden (ids 2, 4 … 10: 5), the second page asked for 5 serves 10 positions (6…14 by 2).
        "drf?mock_total=40&mock_ignores=limit&mock_show_every=2",
    ])
    func anIgnoredLimitRepeatsNothing(target: String) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/" + target)
            // The walk cannot tell how far the pages overlap, so it fails (README: give such a route its upstream's own
            // size as its `limit`): a 502 that says why, not a 200 (before: ids repeated).
            #expect(answer.status == 502, "\(target): \(answer.status) \(Self.ids(answer.body))")
            #expect(answer.text.contains(#""code":"pagination_stuck""#) && answer.text.contains("ignores the limit"), "\(target): \(answer.text.prefix(400))")
        }
    }

    @Test("NDJSON over an ignored limit and a filter hiding two of three: no item sent twice before the error line")
    func anNDJSONWalkSendsNoItemTwice() async throws {
        try await TestStack.run { stack in
            // Ids 3, 6, 9, then at offset 3 (asked for 3, cut at 10) 6, 9, 12 (6, 9 dropped), then at offset 6 9, 12, 15:
            // the third page reaches back into the second's items of the first. Before: 9 and 12 sent again, and the
            // walk failed at the fourth page.
            // A stream cut by an error line ends with no last chunk: read to the close.
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/drf?mock_total=30&mock_ignores=limit&mock_show_every=3&_format=ndjson"))
            let raw = try await client.readUntilClose()
            let ids = Self.ids(raw)
            #expect(Set(ids).count == ids.count && ids == ids.sorted(), "\(ids)")
            #expect(String(decoding: raw, as: UTF8.self).contains(#""code":"pagination_stuck""#), "\(String(decoding: raw.suffix(300), as: UTF8.self))")
        }
    }

    @Test("an upstream that honours limit under the same filter still answers every item once, with no more requests")
    func anHonouredLimitStillWalks() async throws {
        try await TestStack.run { stack in
            stack.mock.log.reset()
            let answer = try await stack.get("/drf?mock_total=30&mock_hide_every=4")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(Self.ids(answer.body) == Self.ids(MockDataset.mergedJSON(total: 30, hidingEvery: 4)))
            // Offsets 0, 8, 16, 24 (the last page at 24 holds 25…30 less 28): four requests, as before the check.
            #expect(stack.mock.log.count == 4, "\(stack.mock.log.count) requests")
        }
    }

    /// The `id` of each item of a merged answer, in order (`IgnoredLimitLastPageEndToEndTests` too).
    static func ids(_ body: [UInt8]) -> [Int] {
        String(decoding: body, as: UTF8.self).components(separatedBy: #"{"id":"#).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }
}

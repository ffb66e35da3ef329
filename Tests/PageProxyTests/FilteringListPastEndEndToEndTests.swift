import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// review27 R4: an offset list with no total that filters its pages goes on past each short page (filter19). An
/// upstream that answers past its end with its last page (Django's `get_page()`; `mock_past_end=last`) serves there
/// the list's tail again: the list ended at the short page, and that page's items are not handed out again.
@Suite struct FilteringListPastEndEndToEndTests {
    @Test("past a filtering list's end, its last page again: every item once, a whole list, from the cache the same", arguments: [
        // Every 4th id hidden: offsets 0, 8 (asked for 8), 16, 24 (25, 26, 27, 29, 30: short), then 32, past the end:
        // the last page of 8 again. Before: a 200 with 25…30 twice (28 items for 23).
        "mock_total=30&mock_hide_every=4&mock_past_end=last",
        // With `_max_pages=5` the fifth page is that repeat. Before: a 200, Truncated, 25…30 twice (review27's input).
        "mock_total=30&mock_hide_every=4&mock_past_end=last&_max_pages=5",
        // Every 3rd id shown: the second page lay inside the first, asked again at offset 3 for 10; then 13, 23 (24,
        // 27, 30: short) and 33, past the end: the upstream's last page of 10 at offset 20, 21, 24, 27, 30 (21 of the
        // page before the short one). Before: 21, 24, 27, 30 twice.
        "mock_total=30&mock_show_every=3&mock_past_end=last",
    ], [false, true])
    func theLastPageAgainEndsTheList(query: String, sendsFromFiles: Bool) async throws {
        try await TestStack.runWithOwnCacheDirectory(routes: SchemeRoutes.all, sendsFromFiles: sendsFromFiles) { stack, _ in
            let expected = query.contains("hide")
                ? Self.ids(MockDataset.mergedJSON(total: 30, hidingEvery: 4)) : Self.ids(MockDataset.mergedJSON(total: 30, showingEvery: 3))
            let answer = try await stack.get("/offset?" + query)
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(Self.ids(answer.body) == expected, "\(query): \(Self.ids(answer.body))")
            #expect(answer.header("PageProxy-Truncated") == nil, "\(query): truncated")
            // NDJSON from the cached pages (another entry), their bodies in files or not: the same items, no request.
            let requests = stack.mock.log.count
            let again = try await stack.get("/offset?" + query + "&_format=ndjson")
            #expect(again.status == 200)
            #expect(Self.ids(again.body) == expected, "\(query) ndjson: \(Self.ids(again.body))")
            #expect(stack.mock.log.count == requests, "\(stack.mock.log.count - requests) requests for the cached walk")
        }
    }

    /// The `id` of each item of an answer, in order.
    private static func ids(_ body: [UInt8]) -> [Int] {
        String(decoding: body, as: UTF8.self).components(separatedBy: #"{"id":"#).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }
}

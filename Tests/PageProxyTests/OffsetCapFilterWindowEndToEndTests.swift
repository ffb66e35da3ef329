import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Offset walks and windows over an upstream that caps its pages below the route's `limit` with no total (real18 F1b),
/// and windows over one that filters its pages after cutting them (real18 F2).
@Suite struct OffsetCapFilterWindowEndToEndTests {
    /// The `offset` route (limit 10, no total) over a mock serving at most 7 items a page: DRF's and Tastypie's
    /// `max_limit`, which a route's `limit` above it meets without a word.
    private static let capped = "/offset?mock_total=30&mock_cap=7"

    @Test("no total, a cap below the route's limit: every item, not the first page's 7 (real18 F1b)")
    func aCapWithNoTotalLosesNothing() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get(Self.capped)
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(Self.ids(answer.body) == Array(1...30), "\(answer.header("PageProxy-Items") ?? "-") items")
            // A list shorter than a page still ends: its second page is empty.
            let short = try await stack.get("/offset?mock_total=5")
            #expect(Self.ids(short.body) == Array(1...5), "\(short.text.prefix(200))")
        }
    }

    @Test("no total, a cap below the route's limit: windows hold their items and link on (real18 F1b: 7 items, or none)")
    func windowsOverACapWithNoTotal() async throws {
        try await TestStack.run { stack in
            for (offset, limit) in [(0, 20), (25, 10), (12, 6), (3, 30)] {
                let answer = try await stack.get(Self.capped + "&_offset=\(offset)&_limit=\(limit)")
                #expect(answer.status == 200, "\(offset)/\(limit): \(answer.text.prefix(300))")
                let end = min(30, offset + limit)
                #expect(Self.ids(answer.body) == Array((offset + 1)...end), "window \(offset)/\(limit): \(answer.text.prefix(200))")
            }
        }
    }

    /// The `drf` route (limit 10, `count`) over a mock hiding every 5th id after cutting its pages, still counting them.
    private static let filtered = "/drf?mock_total=250&mock_hide_every=5"

    @Test("a filtering upstream: every window is a slice of the merged answer (real18 F2: _offset=98 started 20 ids early)")
    func windowsOverAFilterAreSlicesOfTheMergedAnswer() async throws {
        try await TestStack.run { stack in
            let merged = Self.ids(MockDataset.mergedJSON(total: 250, hidingEvery: 5))
            for (offset, limit) in [(98, 50), (31, 7), (190, 20)] {
                let answer = try await stack.get(Self.filtered + "&_offset=\(offset)&_limit=\(limit)")
                #expect(answer.status == 200, "\(offset)/\(limit): \(answer.text.prefix(300))")
                let want = Array(merged[min(offset, merged.count)..<min(offset + limit, merged.count)])
                #expect(Self.ids(answer.body) == want, "window \(offset)/\(limit): \(answer.text.prefix(200))")
            }
        }
    }

    @Test("a filtering upstream: a scroll by rel=\"next\" gets every item once (real18 F2: 40 twice)", arguments: [50, 13])
    func aScrollOverAFilterRepeatsNothing(limit: Int) async throws {
        try await TestStack.run { stack in
            var next: String? = Self.filtered + "&_offset=0&_limit=\(limit)"
            var got: [Int] = []
            for _ in 0..<40 {
                guard let target = next else { break }
                let answer = try await stack.get(target)
                #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
                got += Self.ids(answer.body)
                next = Self.nextTarget(answer.header("Link"))
            }
            #expect(next == nil, "the scroll did not end")
            #expect(got == Self.ids(MockDataset.mergedJSON(total: 250, hidingEvery: 5)), "\(got.count) items")
        }
    }

    @Test("an upstream answering past its end with its last page: the window at the total is empty, and a scroll ends (review25 L6)")
    func aClampingUpstreamEndsTheScroll() async throws {
        try await TestStack.run { stack in
            let clamped = "/drf?mock_total=30&mock_past_end=last"
            let atTotal = try await stack.get(clamped + "&_offset=30&_limit=10")
            #expect(atTotal.status == 200, "\(atTotal.text.prefix(300))")
            #expect(Self.ids(atTotal.body).isEmpty, "before: items 21–30 again, linking on to 40: \(atTotal.text.prefix(300))")
            #expect(Self.nextTarget(atTotal.header("Link")) == nil, "\(atTotal.header("Link") ?? "-")")
            var next: String? = clamped + "&_offset=0&_limit=10"
            var got: [Int] = []
            for _ in 0..<8 {
                guard let target = next else { break }
                let answer = try await stack.get(target)
                got += Self.ids(answer.body)
                next = Self.nextTarget(answer.header("Link"))
            }
            #expect(next == nil && got == Array(1...30), "\(got)")
        }
    }

    /// The path and query of a `Link` header's `rel="next"`.
    private static func nextTarget(_ link: String?) -> String? {
        guard let link else { return nil }
        for part in link.components(separatedBy: ",") where part.contains("rel=\"next\"") {
            guard let open = part.firstIndex(of: "<"), let close = part.firstIndex(of: ">") else { continue }
            let url = String(part[part.index(after: open)..<close])
            guard let components = URLComponents(string: url) else { return nil }
            return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        }
        return nil
    }

    /// The `id` of each item of an answer, in order.
    private static func ids(_ body: [UInt8]) -> [Int] {
        String(decoding: body, as: UTF8.self).components(separatedBy: #"{"id":"#).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }
}

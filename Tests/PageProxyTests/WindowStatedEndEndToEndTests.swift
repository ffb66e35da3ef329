import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Windows at a stated end that is wrong (review22 M2's capped half, attack16 L6): a window holds what the merged answer
/// holds at its positions, links on while items remain, and states no total a page disproved.
@Suite struct WindowStatedEndEndToEndTests {
    /// 30 items, a stated total of 20, and an upstream capping the size at 4 under the routes' 10.
    private static let lowAndCapped = "mock_total=30&mock_count_percent=67&mock_cap=4"

    @Test("a scroll by windows over a capped upstream with a low total reaches every item (before: it stopped at 20 of 30)",
          arguments: ["drf", "wrapped"])
    func aScrollReachesEveryItem(route: String) async throws {
        try await TestStack.run { stack in
            var offset = 0
            for _ in 0..<8 {
                let answer = try await stack.get("/\(route)?\(Self.lowAndCapped)&_offset=\(offset)&_limit=6")
                #expect(answer.status == 200, "\(answer.text.prefix(300))")
                #expect(answer.body == MockDataset.page(offset: offset, count: 6, total: 30), "window at \(offset): \(answer.text.prefix(200))")
                guard (answer.header("Link") ?? "").contains("rel=\"next\"") else { break }
                offset += 6
            }
            // The window 24–29 holds the last items, and links on no further.
            #expect(offset == 24, "the scroll ended at the window at \(offset) of 30 items")
        }
    }

    @Test("an offset window jumped to a low total on a capped upstream holds its whole window (before: 4 of 6, no next, no Truncated)")
    func aJumpToALowTotalHoldsTheWindow() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/drf?\(Self.lowAndCapped)&_offset=20&_limit=6")
            #expect(answer.body == MockDataset.page(offset: 20, count: 6, total: 30), "\(answer.text.prefix(300))")
            #expect((answer.header("Link") ?? "").contains("_offset=26&_limit=6>; rel=\"next\""), "\(answer.header("Link") ?? "-")")
        }
    }

    @Test("a window ending at a low total on a capped upstream links on (before: no next)", arguments: ["drf", "wrapped"])
    func aWindowEndingAtALowTotalLinksOn(route: String) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/\(route)?\(Self.lowAndCapped)&_offset=10&_limit=10")
            #expect(answer.body == MockDataset.page(offset: 10, count: 10, total: 30), "\(answer.text.prefix(300))")
            #expect((answer.header("Link") ?? "").contains("_offset=20&_limit=10>; rel=\"next\""), "\(answer.header("Link") ?? "-")")
        }
    }

    @Test("an NDJSON window over several pages links on at a stated end as the JSON one does (before: no next at a full end)",
          arguments: ["json", "ndjson"], [
              // States 20 of 30: the window 5–19 spans pages 0–9 and 10–19, and ends full at the total: next.
              ("mock_total=30&mock_count_percent=67&_offset=5&_limit=15", "_offset=20&_limit=15>; rel=\"next\""),
              // A true total of 15 ends on a short page: no next.
              ("mock_total=15&_offset=5&_limit=10", nil),
          ])
    func anNDJSONWindowAtAStatedEndLinksAsJSON(format: String, window: (query: String, next: String?)) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/drf?_format=\(format)&\(window.query)")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            let link = answer.header("Link") ?? ""
            if let next = window.next {
                #expect(link.contains(next), "\(format): \(link)")
            } else {
                #expect(!link.contains("rel=\"next\""), "\(format): \(link)")
            }
        }
    }

    @Test("a total an empty page disproved is stated by no answer, and no window links past it (attack16 L6)", arguments: [
        // 12 items stated as 30: the merged answer's last numbered page (offset 20) is empty.
        "drf?mock_total=12&mock_count_percent=250",
        // A window whose walk's last page (offset 10) is empty, and one jumped past the end.
        "drf?mock_total=10&mock_count_percent=300&_offset=8&_limit=6",
        "drf?mock_total=12&mock_count_percent=250&_offset=20&_limit=5",
        // A page-number window whose walk asks the page after one short of the size it was numbered by: empty. (One
        // its page count stopped at the short page proves no end: ShortPageAtCapEndToEndTests.)
        "wrapped?mock_total=12&mock_count_percent=250&_offset=8&_limit=13",
        "wrapped?mock_total=12&mock_count_percent=250",
        // The last page a total numbered is short, not empty (95 items stated as 100: page 10 holds 5); before, the
        // merged answer said `PageProxy-Total: 100` beside 95 items (walker17's leftover).
        "wrapped?mock_total=95&mock_count_percent=106",
    ])
    func aDisprovedTotalIsNotStated(target: String) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/" + target)
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.header("PageProxy-Total") == nil, "\(target): \(answer.header("PageProxy-Total") ?? "-")")
            #expect(!(answer.header("Link") ?? "").contains("rel=\"next\""), "\(target): \(answer.header("Link") ?? "-")")
            #expect(answer.header("PageProxy-Truncated") == nil, "\(target)")
        }
    }

    @Test("an offset route's short pages may be a filter's: its total stays, the items it shows once each")
    func aFilteringOffsetUpstreamKeepsItsTotal() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/drf?mock_total=30&mock_hide_every=4")
            #expect(answer.body == MockDataset.mergedJSON(total: 30, hidingEvery: 4), "\(answer.text)")
            #expect(answer.header("PageProxy-Total") == "30")
            // A capped one (its second page showed the cap) whose last page is short where the total said full: no total.
            let capped = try await stack.get("/drf?mock_total=27&mock_count_percent=112&mock_cap=6")
            #expect(capped.body == MockDataset.mergedJSON(total: 27), "\(capped.text)")
            #expect(capped.header("PageProxy-Total") == nil, "\(capped.header("PageProxy-Total") ?? "-")")
        }
    }
}

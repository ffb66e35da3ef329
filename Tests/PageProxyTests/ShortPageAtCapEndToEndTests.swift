import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A numbered page short of its size that a cap stopped the walk at (a window's page count, `_max_pages`) proves no
/// end: an upstream that filters a page after cutting it has more after it. The answer stays truncated, states the
/// total and links on (review25 M2: it answered as the whole list, no total, no next, no Truncated).
@Suite struct ShortPageAtCapEndToEndTests {
    /// 50 items in pages of 10 whose third page (ids 20–29) holds 9: the upstream hides id 25 after paging.
    private static let thirdPageFiltered = "mock_total=50&mock_hide_every=25"

    @Test("a window whose page count stops at a short page is truncated and links on (before: 19 items as the list's end)")
    func aWindowStoppedAtAShortPageLinksOn() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/wrapped?\(Self.thirdPageFiltered)&_offset=10&_limit=20")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: 10, count: 20, total: 50, hidingEvery: 25), "\(answer.text.prefix(300))")
            #expect(answer.header("PageProxy-Truncated") != nil)
            #expect(answer.header("PageProxy-Total") == "50", "\(answer.header("PageProxy-Total") ?? "-")")
            #expect((answer.header("Link") ?? "").contains("_offset=29&_limit=20>; rel=\"next\""), "\(answer.header("Link") ?? "-")")
        }
    }

    @Test("a merged walk whose _max_pages stops at a short page states its total (before: truncated but no total)")
    func aMergedWalkStoppedAtAShortPageIsTruncated() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/wrapped?\(Self.thirdPageFiltered)&_max_pages=3")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: 0, count: 30, total: 50, hidingEvery: 25), "\(answer.text.prefix(300))")
            #expect(answer.header("PageProxy-Truncated") != nil)
            #expect(answer.header("PageProxy-Total") == "50", "\(answer.header("PageProxy-Total") ?? "-")")
        }
    }

    @Test("a window stopped at a short page of a too-high total links on once, and the window there ends the scroll")
    func aScrollPastAWrongTotalEndsOneWindowLater() async throws {
        try await TestStack.run { stack in
            // 12 items stated as 30: the walk of 8–13 stops at page 2 (ids 10–11), which cannot tell the end from a
            // filtered page: it links on.
            let query = "mock_total=12&mock_count_percent=250"
            let capped = try await stack.get("/wrapped?\(query)&_offset=8&_limit=6")
            #expect(capped.body == MockDataset.page(offset: 8, count: 4, total: 12), "\(capped.text.prefix(300))")
            #expect(capped.header("PageProxy-Truncated") != nil)
            #expect((capped.header("Link") ?? "").contains("_offset=12&_limit=6>; rel=\"next\""), "\(capped.header("Link") ?? "-")")
            // The window at 12 finds the end: no total, no next.
            let after = try await stack.get("/wrapped?\(query)&_offset=12&_limit=6")
            #expect(after.status == 200, "\(after.text.prefix(300))")
            #expect(after.header("PageProxy-Total") == nil, "\(after.header("PageProxy-Total") ?? "-")")
            #expect(!(after.header("Link") ?? "").contains("rel=\"next\""), "\(after.header("Link") ?? "-")")
        }
    }
}

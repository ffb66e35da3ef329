import Foundation
import PageProxyCore
import Testing

@testable import PageProxy

/// The memo of merged answers: kept while every page is fresh, bounded in bytes, least recently used out first.
@Suite struct MergedAnswerMemoTests {
    private static func answer(bytes: Int, freshUntil: Date) -> MergedAnswerMemo.Answer {
        MergedAnswerMemo.Answer(
            body: Array(repeating: UInt8(ascii: "x"), count: bytes), pages: 1, items: 1, truncated: false, etag: "\"e\"",
            freshUntil: freshUntil)
    }

    private let now = Date(timeIntervalSince1970: 1_000_000)

    @Test("an answer is served until the moment its first page goes stale, then forgotten")
    func answerEndsWithItsFreshness() {
        let memo = MergedAnswerMemo(maxBytes: 1000)
        memo.keep(Self.answer(bytes: 10, freshUntil: now.addingTimeInterval(60)), for: "a")
        #expect(memo.answer(for: "a", at: now)?.body.count == 10)
        #expect(memo.answer(for: "a", at: now.addingTimeInterval(59.9)) != nil)
        #expect(memo.answer(for: "a", at: now.addingTimeInterval(60)) == nil)
        #expect(memo.count == 0)
    }

    @Test("past the byte bound the least recently used answer goes first")
    func leastRecentlyUsedGoesFirst() {
        let memo = MergedAnswerMemo(maxBytes: 100)
        let later = now.addingTimeInterval(60)
        memo.keep(Self.answer(bytes: 40, freshUntil: later), for: "a")
        memo.keep(Self.answer(bytes: 40, freshUntil: later), for: "b")
        _ = memo.answer(for: "a", at: now)
        memo.keep(Self.answer(bytes: 40, freshUntil: later), for: "c")
        #expect(memo.answer(for: "a", at: now) != nil)
        #expect(memo.answer(for: "b", at: now) == nil)
        #expect(memo.answer(for: "c", at: now) != nil)
    }

    @Test("an answer larger than half the bound is not kept, and a zero bound keeps nothing")
    func largeAnswersAreNotKept() {
        let memo = MergedAnswerMemo(maxBytes: 100)
        memo.keep(Self.answer(bytes: 51, freshUntil: now.addingTimeInterval(60)), for: "a")
        #expect(memo.count == 0)
        let off = MergedAnswerMemo(maxBytes: 0)
        off.keep(Self.answer(bytes: 0, freshUntil: now.addingTimeInterval(60)), for: "a")
        #expect(off.count == 0)
    }

    @Test("the key holds the credentials sent upstream, so two clients never share an answer")
    func keyHoldsTheUpstreamHeaders() throws {
        let base = try #require(PageURL(string: "http://127.0.0.1:1/items"))
        let alice = MergedAnswerMemo.key(route: "r", base: base, pageLimit: nil, itemLimit: nil, upstreamHeaders: ["Authorization": "a"])
        let bob = MergedAnswerMemo.key(route: "r", base: base, pageLimit: nil, itemLimit: nil, upstreamHeaders: ["Authorization": "b"])
        let capped = MergedAnswerMemo.key(route: "r", base: base, pageLimit: 2, itemLimit: nil, upstreamHeaders: ["Authorization": "a"])
        #expect(alice != bob)
        #expect(alice != capped)
    }
}

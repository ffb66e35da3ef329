import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The memo of merged answers: kept while every page is fresh and unchanged in the store, bounded in bytes, least
/// recently used out first.
@Suite struct MergedAnswerMemoTests {
    /// A store under a fresh directory, removed when the test ends.
    final class Store: Sendable {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-memo-\(UUID().uuidString)").path
        let store: DiskStore

        init(maxBytes: Int = 1 << 20) {
            store = DiskStore(directory: path, maxBytes: maxBytes)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        static func key(_ page: Int) -> CacheKey {
            CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=\(page)")!))
        }

        /// Writes page `page` (body `[page]`, or `body`) and returns the stamp of the version written.
        @discardableResult
        func write(_ page: Int, body: String? = nil) throws -> PageStamp {
            let entry = CacheEntry(
                status: .ok, headers: HTTPHeaders(), body: Array((body ?? "[\(page)]").utf8), storedAt: Date(timeIntervalSince1970: 0),
                freshUntil: .distantFuture)
            return try #require(store.write(entry, for: Self.key(page)))
        }
    }

    private static func answer(bytes: Int, freshUntil: Date, stamps: [PageStamp] = []) -> MergedAnswerMemo.Answer {
        MergedAnswerMemo.Answer(
            body: Array(repeating: UInt8(ascii: "x"), count: bytes), pages: 1, items: 1, truncated: false, etag: "\"e\"",
            freshUntil: freshUntil, stamps: stamps)
    }

    private let now = Date(timeIntervalSince1970: 1_000_000)
    private let pages = Store()

    @Test("an answer is served until the moment its first page goes stale, then forgotten")
    func answerEndsWithItsFreshness() {
        let memo = MergedAnswerMemo(maxBytes: 1000, store: pages.store, perAnswerBytes: 0)
        memo.keep(Self.answer(bytes: 10, freshUntil: now.addingTimeInterval(60)), for: "a")
        #expect(memo.answer(for: "a", at: now)?.body.count == 10)
        #expect(memo.answer(for: "a", at: now.addingTimeInterval(59.9)) != nil)
        #expect(memo.answer(for: "a", at: now.addingTimeInterval(60)) == nil)
        #expect(memo.count == 0)
    }

    @Test("an answer is dropped once a page it was built from is rewritten, removed or evicted; others stay")
    func answerEndsWhenAPageChanges() throws {
        let pages = Store(maxBytes: 4096)
        let memo = MergedAnswerMemo(maxBytes: 1000, store: pages.store, perAnswerBytes: 0)
        let later = now.addingTimeInterval(60)
        let one = try pages.write(1)
        let two = try pages.write(2)
        let three = try pages.write(3)
        memo.keep(Self.answer(bytes: 10, freshUntil: later, stamps: [one]), for: "rewritten")
        memo.keep(Self.answer(bytes: 10, freshUntil: later, stamps: [two]), for: "removed")
        memo.keep(Self.answer(bytes: 10, freshUntil: later, stamps: [three]), for: "evicted")
        memo.keep(Self.answer(bytes: 10, freshUntil: later, stamps: [one, two, three]), for: "all")
        #expect(memo.count == 4)
        // The same bytes written again (a 304 refresh writes the entry again) are a new version too.
        try pages.write(1, body: "[1]")
        #expect(memo.answer(for: "rewritten", at: now) == nil)
        #expect(memo.answer(for: "removed", at: now) != nil)
        pages.store.remove(Store.key(2))
        #expect(memo.answer(for: "removed", at: now) == nil)
        #expect(memo.answer(for: "evicted", at: now) != nil)
        // Fill the store past its bound with newer entries: page 3, the least recently used, goes.
        for page in 10..<40 { _ = try? pages.write(page, body: String(repeating: "x", count: 200)) }
        pages.store.waitForEvictions()
        #expect(!pages.store.contains(Store.key(3)))
        #expect(memo.answer(for: "evicted", at: now) == nil)
        #expect(memo.answer(for: "all", at: now) == nil)
        #expect(memo.count == 0)
    }

    @Test("once the store is disabled no answer is served: every walk then bypasses the cache")
    func noAnswerOnceTheStoreIsDisabled() throws {
        let memo = MergedAnswerMemo(maxBytes: 1000, store: pages.store, perAnswerBytes: 0)
        let one = try pages.write(1)
        memo.keep(Self.answer(bytes: 10, freshUntil: now.addingTimeInterval(60), stamps: [one]), for: "a")
        #expect(memo.answer(for: "a", at: now) != nil)
        // The directory becomes a file: the next write cannot make its subdirectory, and disables the store.
        try FileManager.default.removeItem(atPath: pages.path)
        try Data("x".utf8).write(to: URL(fileURLWithPath: pages.path))
        let two = CacheEntry(status: .ok, headers: HTTPHeaders(), body: Array("[2]".utf8), storedAt: now, freshUntil: .distantFuture)
        #expect(pages.store.write(two, for: Store.key(2)) == nil)
        #expect(!pages.store.isEnabled)
        #expect(memo.answer(for: "a", at: now) == nil)
        #expect(memo.count == 0)
    }

    @Test("an answer whose page changed while it was built is not kept")
    func answerBuiltFromAReplacedPageIsNotKept() throws {
        let memo = MergedAnswerMemo(maxBytes: 1000, store: pages.store, perAnswerBytes: 0)
        let old = try pages.write(1)
        try pages.write(1, body: "[2]")
        memo.keep(Self.answer(bytes: 10, freshUntil: now.addingTimeInterval(60), stamps: [old]), for: "a")
        #expect(memo.count == 0)
    }

    @Test("past the byte bound the least recently used answer goes first")
    func leastRecentlyUsedGoesFirst() {
        let memo = MergedAnswerMemo(maxBytes: 100, store: pages.store, perAnswerBytes: 0)
        let later = now.addingTimeInterval(60)
        memo.keep(Self.answer(bytes: 40, freshUntil: later), for: "a")
        memo.keep(Self.answer(bytes: 40, freshUntil: later), for: "b")
        _ = memo.answer(for: "a", at: now)
        memo.keep(Self.answer(bytes: 40, freshUntil: later), for: "c")
        #expect(memo.answer(for: "a", at: now) != nil)
        #expect(memo.answer(for: "b", at: now) == nil)
        #expect(memo.answer(for: "c", at: now) != nil)
    }

    @Test("every answer counts what it holds besides its body: many tiny answers stay within the bound")
    func tinyAnswersCountTheirKeep() {
        let memo = MergedAnswerMemo(maxBytes: 64 << 10, store: pages.store)
        let later = now.addingTimeInterval(60)
        // `[{}]`: what `_fields` naming no member makes of any page; each distinct request is its own answer.
        for index in 0..<10_000 { memo.keep(Self.answer(bytes: 4, freshUntil: later), for: "tiny \(index)") }
        #expect(memo.count <= (64 << 10) / MergedAnswerMemo.measuredAnswerBytes)
        #expect(memo.count > 0)
        #expect(memo.answer(for: "tiny 9999", at: now) != nil)
    }

    @Test("an answer larger than half the bound is not kept; a zero bound or no cache keeps nothing")
    func largeAnswersAreNotKept() {
        let memo = MergedAnswerMemo(maxBytes: 100, store: pages.store, perAnswerBytes: 0)
        memo.keep(Self.answer(bytes: 51, freshUntil: now.addingTimeInterval(60)), for: "a")
        #expect(memo.count == 0)
        let off = MergedAnswerMemo(maxBytes: 0, store: pages.store, perAnswerBytes: 0)
        off.keep(Self.answer(bytes: 0, freshUntil: now.addingTimeInterval(60)), for: "a")
        #expect(off.count == 0)
        let uncached = MergedAnswerMemo(maxBytes: 100, store: nil, perAnswerBytes: 0)
        uncached.keep(Self.answer(bytes: 0, freshUntil: now.addingTimeInterval(60)), for: "a")
        #expect(uncached.count == 0)
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

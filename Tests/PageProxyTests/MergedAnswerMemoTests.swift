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

    /// An answer of `bytes`, charged against `memo`'s bound as the renderer charges one; nil when it has no room.
    /// Made at `madeAt` (by default, long before any `now` of these tests).
    private static func answer(
        in memo: MergedAnswerMemo, bytes: Int, freshUntil: Date, madeAt: Date = .distantPast, stamps: [PageStamp] = []
    ) -> MergedAnswerMemo.Answer? {
        guard let charge = memo.reserve(bodyBytes: bytes) else { return nil }
        return MergedAnswerMemo.Answer(
            body: Array(repeating: UInt8(ascii: "x"), count: bytes), pages: 1, items: 1, truncated: false, etag: "\"e\"",
            freshUntil: freshUntil, madeAt: madeAt, stamps: stamps, charge: charge)
    }

    /// Keeps an answer of `bytes` for `key` when `memo` has room for it.
    private static func keep(
        _ memo: MergedAnswerMemo, bytes: Int, freshUntil: Date, madeAt: Date = .distantPast, stamps: [PageStamp] = [], for key: String
    ) {
        guard let answer = answer(in: memo, bytes: bytes, freshUntil: freshUntil, madeAt: madeAt, stamps: stamps) else { return }
        memo.keep(answer, for: key)
    }

    private let now = Date(timeIntervalSince1970: 1_000_000)
    private let pages = Store()

    @Test("an answer is served until the moment its first page goes stale, then forgotten")
    func answerEndsWithItsFreshness() {
        let memo = MergedAnswerMemo(maxBytes: 1000, store: pages.store, perAnswerBytes: 0)
        Self.keep(memo, bytes: 10, freshUntil: now.addingTimeInterval(60), for: "a")
        #expect(memo.answer(for: "a", at: now)?.body.count == 10)
        #expect(memo.answer(for: "a", at: now.addingTimeInterval(59.9)) != nil)
        #expect(memo.answer(for: "a", at: now.addingTimeInterval(60)) == nil)
        #expect(memo.count == 0)
    }

    @Test("an answer made after now (the clock stepped back since) is dropped; caches in front are never told more than its lifetime (attack17 M2)")
    func anAnswerMadeAfterNowIsDropped() throws {
        let memo = MergedAnswerMemo(maxBytes: 1000, store: pages.store, perAnswerBytes: 0)
        Self.keep(memo, bytes: 10, freshUntil: now.addingTimeInterval(60), madeAt: now, for: "a")
        // A moment before it was made (another thread's `now`), within the tolerance: served, for its 60 s at most.
        let early = now.addingTimeInterval(-0.25)
        let answer = try #require(memo.answer(for: "a", at: early))
        #expect(answer.freshUntil(forCachesAt: early) == early.addingTimeInterval(60))
        #expect(AnswerFreshness.cacheControl(freshUntil: answer.freshUntil(forCachesAt: early), at: early, isPrivate: false) == "max-age=60")
        #expect(answer.freshUntil(forCachesAt: now.addingTimeInterval(10)) == now.addingTimeInterval(60))
        // The clock a day back: fresh by `freshUntil` for a day and a minute, but not used, and forgotten.
        #expect(memo.answer(for: "a", at: now.addingTimeInterval(-86_400)) == nil)
        #expect(memo.count == 0)
    }

    @Test("an answer is dropped once a page it was built from is rewritten, removed or evicted; others stay")
    func answerEndsWhenAPageChanges() async throws {
        let pages = Store(maxBytes: 4096)
        let memo = MergedAnswerMemo(maxBytes: 1000, store: pages.store, perAnswerBytes: 0)
        let later = now.addingTimeInterval(60)
        let one = try pages.write(1)
        let two = try pages.write(2)
        let three = try pages.write(3)
        Self.keep(memo, bytes: 10, freshUntil: later, stamps: [one], for: "rewritten")
        Self.keep(memo, bytes: 10, freshUntil: later, stamps: [two], for: "removed")
        Self.keep(memo, bytes: 10, freshUntil: later, stamps: [three], for: "evicted")
        Self.keep(memo, bytes: 10, freshUntil: later, stamps: [one, two, three], for: "all")
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
        await pages.store.waitForEvictions()
        #expect(!pages.store.contains(Store.key(3)))
        #expect(memo.answer(for: "evicted", at: now) == nil)
        #expect(memo.answer(for: "all", at: now) == nil)
        #expect(memo.count == 0)
    }

    @Test("once the store is disabled no answer is served: every walk then bypasses the cache")
    func noAnswerOnceTheStoreIsDisabled() throws {
        let memo = MergedAnswerMemo(maxBytes: 1000, store: pages.store, perAnswerBytes: 0)
        let one = try pages.write(1)
        Self.keep(memo, bytes: 10, freshUntil: now.addingTimeInterval(60), stamps: [one], for: "a")
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
        Self.keep(memo, bytes: 10, freshUntil: now.addingTimeInterval(60), stamps: [old], for: "a")
        #expect(memo.count == 0)
    }

    @Test("past the byte bound the least recently used answer goes first")
    func leastRecentlyUsedGoesFirst() {
        let memo = MergedAnswerMemo(maxBytes: 100, store: pages.store, perAnswerBytes: 0)
        let later = now.addingTimeInterval(60)
        Self.keep(memo, bytes: 40, freshUntil: later, for: "a")
        Self.keep(memo, bytes: 40, freshUntil: later, for: "b")
        _ = memo.answer(for: "a", at: now)
        Self.keep(memo, bytes: 40, freshUntil: later, for: "c")
        #expect(memo.answer(for: "a", at: now) != nil)
        #expect(memo.answer(for: "b", at: now) == nil)
        #expect(memo.answer(for: "c", at: now) != nil)
    }

    @Test("an answer dropped while a request still sends it stays charged until that send ends: no room for another meanwhile")
    func aDroppedAnswerBeingSentStaysCharged() throws {
        let memo = MergedAnswerMemo(maxBytes: 100, store: pages.store, perAnswerBytes: 0)
        Self.keep(memo, bytes: 40, freshUntil: now.addingTimeInterval(10), for: "a")
        // A memo hit: the request holds the answer for as long as it sends it.
        var sending = memo.answer(for: "a", at: now)
        #expect(sending != nil)
        Self.keep(memo, bytes: 40, freshUntil: now.addingTimeInterval(60), for: "b")
        // `a` goes stale and is dropped; its send goes on.
        #expect(memo.answer(for: "a", at: now.addingTimeInterval(10)) == nil)
        #expect(memo.keptBytes == 40)
        #expect(memo.chargedBytes == 80, "the dropped answer being sent is still charged")
        // Room for another: `b`, which no request holds, goes; then the answer being sent leaves room for nothing more.
        let readBack = memo.reserve(bodyBytes: 40)
        #expect(readBack != nil)
        #expect(memo.keptBytes == 0)
        #expect(memo.reserve(bodyBytes: 40) == nil, "80 charged + 40 would pass the bound")
        #expect(memo.chargedBytes == 80)
        sending = nil
        #expect(memo.chargedBytes == 40, "its charge ends with its send")
        #expect(memo.reserve(bodyBytes: 40) != nil)
        _ = readBack
    }

    @Test("room is made by dropping the least recently used answer no request holds; one being sent stays, and counts")
    func anAnswerBeingSentIsNotDroppedForRoom() throws {
        let memo = MergedAnswerMemo(maxBytes: 100, store: pages.store, perAnswerBytes: 0)
        let later = now.addingTimeInterval(60)
        Self.keep(memo, bytes: 40, freshUntil: later, for: "a")
        Self.keep(memo, bytes: 40, freshUntil: later, for: "b")
        _ = memo.answer(for: "b", at: now)
        // `a` is the least recently used, but a request sends it (a client reading slowly).
        let sending = memo.answer(for: "a", at: now)
        _ = memo.answer(for: "b", at: now)
        Self.keep(memo, bytes: 40, freshUntil: later, for: "c")
        #expect(memo.answer(for: "a", at: now) != nil)
        #expect(memo.answer(for: "b", at: now) == nil)
        #expect(memo.answer(for: "c", at: now) != nil)
        #expect(memo.chargedBytes == 80)
        // Both kept answers held: a new one is refused, and neither is dropped for it.
        let alsoSending = memo.answer(for: "c", at: now)
        Self.keep(memo, bytes: 40, freshUntil: later, for: "d")
        #expect(memo.answer(for: "d", at: now) == nil)
        #expect(memo.count == 2)
        #expect(memo.chargedBytes == 80)
        _ = (sending, alsoSending)
    }

    @Test("an answer to be read back or joined for the memo is refused while the answers being read back leave no room")
    func aReadBackPastTheBoundIsRefused() throws {
        let memo = MergedAnswerMemo(maxBytes: 100, store: pages.store, perAnswerBytes: 0)
        // Two answers being read back: 80 of the 100 bytes.
        var first = memo.reserve(bodyBytes: 40)
        let second = memo.reserve(bodyBytes: 40)
        #expect(first != nil && second != nil)
        #expect(memo.reserve(bodyBytes: 40) == nil, "80 + 40 would pass the bound")
        #expect(memo.reserve(bodyBytes: 20) != nil, "80 + 20 is within it")
        #expect(memo.chargedBytes == 80, "a refused or given up reservation charges nothing")
        first = nil
        #expect(memo.chargedBytes == 40)
        #expect(memo.reserve(bodyBytes: 40) != nil)
        _ = second
    }

    @Test("every answer counts what it holds besides its body: many tiny answers stay within the bound")
    func tinyAnswersCountTheirKeep() {
        let memo = MergedAnswerMemo(maxBytes: 64 << 10, store: pages.store)
        let later = now.addingTimeInterval(60)
        // `[{}]`: what `_fields` naming no member makes of any page; each distinct request is its own answer.
        for index in 0..<10_000 { Self.keep(memo, bytes: 4, freshUntil: later, for: "tiny \(index)") }
        #expect(memo.count <= (64 << 10) / MergedAnswerMemo.measuredAnswerBytes)
        #expect(memo.count > 0)
        #expect(memo.answer(for: "tiny 9999", at: now) != nil)
    }

    @Test("an answer larger than half the bound is not kept; a zero bound or no cache keeps nothing")
    func largeAnswersAreNotKept() {
        let memo = MergedAnswerMemo(maxBytes: 100, store: pages.store, perAnswerBytes: 0)
        Self.keep(memo, bytes: 51, freshUntil: now.addingTimeInterval(60), for: "a")
        #expect(memo.count == 0)
        let off = MergedAnswerMemo(maxBytes: 0, store: pages.store, perAnswerBytes: 0)
        Self.keep(off, bytes: 0, freshUntil: now.addingTimeInterval(60), for: "a")
        #expect(off.count == 0)
        let uncached = MergedAnswerMemo(maxBytes: 100, store: nil, perAnswerBytes: 0)
        Self.keep(uncached, bytes: 0, freshUntil: now.addingTimeInterval(60), for: "a")
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
        #expect(alice == MergedAnswerMemo.key(route: "r", base: base, pageLimit: nil, itemLimit: nil, upstreamHeaders: ["Authorization": "a"]))
    }

    @Test("attack7: the key keeps no credential as written, in a header or in the URL's query")
    func keyHoldsNoCredentialAsWritten() throws {
        let base = try #require(PageURL(string: "http://127.0.0.1:1/items?api_key=query-secret"))
        let key = MergedAnswerMemo.key(
            route: "r", base: base, pageLimit: nil, itemLimit: nil, upstreamHeaders: ["Authorization": "Bearer header-secret"])
        #expect(!key.contains("header-secret") && !key.contains("query-secret") && !key.contains("Bearer"))
        #expect(key.hasPrefix("r\u{0}"))
    }

    /// h13-answer16 leftover: a memo hit did not use the answer's entry in the store, so answer entries were evicted in
    /// the order they were written, however often they were sent.
    @Test("a memo hit is a use of the answer's entry: an eviction takes a page written after it, not the answer sent")
    func aMemoHitUsesTheAnswersEntry() throws {
        let cache = Store(maxBytes: 40_000)
        let stamp = try cache.write(1)
        // The answer's entry (2), then a page (3) written after it: without a use, the entry is the older.
        try cache.write(2, body: String(repeating: "a", count: 10_000))
        try cache.write(3, body: String(repeating: "p", count: 10_000))
        let memo = MergedAnswerMemo(maxBytes: 1 << 20, store: cache.store)
        let charge = try #require(memo.reserve(bodyBytes: 5))
        memo.keep(
            MergedAnswerMemo.Answer(
                body: Array("[1,2]".utf8), pages: 2, items: 2, truncated: false, etag: "\"e\"", freshUntil: .distantFuture, madeAt: .distantPast, stamps: [stamp],
                charge: charge, entryKey: Store.key(2)),
            for: "k")
        #expect(memo.answer(for: "k") != nil)
        // Room for 21 KB: down to 34,000 - 21,000 bytes, which takes page 1 and one of the two larger entries.
        try cache.write(4, body: String(repeating: "q", count: 21_000))
        #expect(cache.store.contains(Store.key(2)))
        #expect(!cache.store.contains(Store.key(3)))
    }

    /// retest17 W2: a memo hit used only the answer's entry, so the pages of the most asked answers (served from the
    /// memo, never looked up) were the least recently used and evicted first; the next walk fetched them again.
    @Test("a memo hit is a use of the answer's pages too: an eviction takes a page written after them, not the answer's pages")
    func aMemoHitUsesTheAnswersPages() throws {
        let cache = Store(maxBytes: 40_000)
        // The answer's two pages, then another page written after them: without a use, the pages are the older.
        let stamps = try [1, 2].map { try cache.write($0, body: String(repeating: "a", count: 10_000)) }
        try cache.write(3, body: String(repeating: "p", count: 10_000))
        let memo = MergedAnswerMemo(maxBytes: 1 << 20, store: cache.store)
        let charge = try #require(memo.reserve(bodyBytes: 5))
        memo.keep(
            MergedAnswerMemo.Answer(
                body: Array("[1,2]".utf8), pages: 2, items: 2, truncated: false, etag: "\"e\"", freshUntil: .distantFuture,
                madeAt: .distantPast, stamps: stamps, charge: charge),
            for: "k")
        #expect(memo.answer(for: "k") != nil)
        // Room for 12 KB: down to 34,000 - 12,000 bytes, which takes one 10 KB page: the one not in the answer.
        try cache.write(4, body: String(repeating: "q", count: 12_000))
        #expect(cache.store.contains(Store.key(1)))
        #expect(cache.store.contains(Store.key(2)))
        #expect(!cache.store.contains(Store.key(3)))
    }
}

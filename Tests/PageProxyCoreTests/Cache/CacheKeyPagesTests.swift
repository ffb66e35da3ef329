import Testing

@testable import PageProxyCore

/// A plan's table of page keys: a page's key is always its request's, whatever URL a later walk finds at that page,
/// and the table keeps no more than its capacity and its budget allow.
@Suite struct CacheKeyPagesTests {
    private static let headers = HTTPHeaders([("Authorization", "Bearer a"), ("X-B", "2")])

    private static func url(_ text: String) -> PageURL {
        PageURL(string: text)!
    }

    private static func requestKey(_ url: PageURL) -> CacheKey {
        CacheKey(UpstreamRequest(url: url, headers: headers), memo: nil)
    }

    private static func table(capacity: Int = 100, budget: CacheKeyPages.Budget = CacheKeyPages.Budget(limit: 100)) -> CacheKeyPages {
        CacheKeyPages(template: CacheKeyTemplate(headers: headers), capacity: capacity, budget: budget)
    }

    /// Two walks through the same pages, then one whose upstream links elsewhere from page 3 on: every key is the
    /// request's, the kept ones and the ones worked out again.
    @Test func aPagesKeyIsItsRequestsKeyWalkAfterWalk() {
        let keys = Self.table()
        let pages = (1...5).map { Self.url("http://api.test/items?page=\($0)&per_page=10") }
        for _ in 0..<2 {
            for (index, url) in pages.enumerated() { #expect(keys.key(for: url, number: index + 1) == Self.requestKey(url)) }
        }
        #expect(keys.count == 5)
        let moved = pages.prefix(2) + (3...5).map { Self.url("http://api.test/v2/items?page=\($0)&per_page=10") }
        for (index, url) in moved.enumerated() { #expect(keys.key(for: url, number: index + 1) == Self.requestKey(url)) }
        for (index, url) in moved.enumerated() { #expect(keys.key(for: url, number: index + 1) == Self.requestKey(url)) }
        // The same page asked as another number (a walk that starts elsewhere) is keyed right too.
        #expect(keys.key(for: pages[0], number: 4) == Self.requestKey(pages[0]))
        #expect(keys.key(for: pages[0], number: 1) == Self.requestKey(pages[0]))
    }

    /// The kept URL is compared byte for byte (issue 13, eleventh pass: with `memcmp`): text that `String`'s `==` takes
    /// as equal (canonically equivalent) but whose bytes differ is another request, with another key; so is one that
    /// differs in its last byte only, or in its length.
    @Test func aKeptURLIsComparedByteForByte() {
        let keys = Self.table()
        let composed = PageURL(scheme: "http", host: "api.test", port: 80, path: "/caf\u{E9}", query: "q=\u{E9}")
        let decomposed = PageURL(scheme: "http", host: "api.test", port: 80, path: "/cafe\u{301}", query: "q=e\u{301}")
        #expect(composed.path == decomposed.path, "equal as String")
        let longer = PageURL(scheme: "http", host: "api.test", port: 80, path: "/caf\u{E9}", query: "q=\u{E9}&")
        let lastByte = PageURL(scheme: "http", host: "api.test", port: 80, path: "/caf\u{E9}", query: "q=\u{E8}")
        let noQuery = PageURL(scheme: "http", host: "api.test", port: 80, path: "/caf\u{E9}", query: nil)
        for url in [composed, decomposed, longer, lastByte, noQuery, composed] {
            #expect(keys.key(for: url, number: 1) == Self.requestKey(url))
            #expect(keys.key(for: url, number: 1) == Self.requestKey(url), "kept")
        }
        #expect(Self.requestKey(composed) != Self.requestKey(decomposed))
    }

    /// Pages past the capacity, and past the budget all tables share, are keyed right but not kept; a table gone
    /// gives its slots back.
    @Test("a URL past maxKeptURLBytes (an upstream's long cursor) is keyed right and not kept")
    func longURLsAreNotKept() {
        let keys = Self.table()
        let long = Self.url("http://api.test/items?cursor=" + String(repeating: "c", count: CacheKeyPages.maxKeptURLBytes))
        let short = Self.url("http://api.test/items?cursor=c")
        #expect(keys.key(for: long, number: 1) == Self.requestKey(long))
        #expect(keys.count == 0)
        #expect(keys.key(for: short, number: 1) == Self.requestKey(short))
        #expect(keys.count == 1)
        #expect(keys.key(for: long, number: 1) == Self.requestKey(long))
    }

    /// A key the table keeps is not kept in the memo too (issue 13, twenty-second pass: a second digest of its input
    /// and a slot there, for every page of the first walk after a restart); one it does not keep (past its capacity,
    /// past the budget, a long URL) is, as before; every key is the request's either way.
    @Test func keysTheTableKeepsAreNotKeptInTheMemoToo() {
        let memo = CacheKeyMemo(capacity: 64)
        let keys = CacheKeyPages(
            template: CacheKeyTemplate(headers: Self.headers), capacity: 4, budget: CacheKeyPages.Budget(limit: 3), memo: memo)
        let pages = (1...4).map { Self.url("http://api.test/items?page=\($0)") }
        for (index, url) in pages.prefix(3).enumerated() { #expect(keys.key(for: url, number: index + 1) == Self.requestKey(url)) }
        #expect(keys.count == 3)
        #expect(memo.count == 0, "kept in the table only")
        // Past the budget (page 4), past the capacity (page 5), a long URL: keyed through the memo.
        #expect(keys.key(for: pages[3], number: 4) == Self.requestKey(pages[3]))
        #expect(keys.key(for: pages[0], number: 5) == Self.requestKey(pages[0]))
        let long = Self.url("http://api.test/items?cursor=" + String(repeating: "c", count: CacheKeyPages.maxKeptURLBytes))
        #expect(keys.key(for: long, number: 1) == Self.requestKey(long))
        #expect(keys.count == 3)
        #expect(memo.count == 3)
        // The kept keys are found again by their URLs, with no digest and nothing added to the memo.
        for (index, url) in pages.prefix(3).enumerated() { #expect(keys.key(for: url, number: index + 1) == Self.requestKey(url)) }
        #expect(memo.count == 3)
    }

    @Test func capacityAndBudgetBoundWhatIsKept() {
        let budget = CacheKeyPages.Budget(limit: 6)
        var first: CacheKeyPages? = Self.table(capacity: 4, budget: budget)
        let url = Self.url("http://api.test/items?page=9")
        for number in [1, 2, 3, 4, 5, 9, 0, -1] { #expect(first?.key(for: url, number: number) == Self.requestKey(url)) }
        #expect(first?.count == 4)
        #expect(budget.inUse == 4)
        let second = Self.table(capacity: 4, budget: budget)
        // Page 3 would take three slots: two are left.
        #expect(second.key(for: url, number: 3) == Self.requestKey(url))
        #expect(second.count == 0)
        #expect(second.key(for: url, number: 2) == Self.requestKey(url))
        #expect(second.count == 2)
        #expect(budget.inUse == 6)
        first = nil
        #expect(budget.inUse == 2)
        #expect(second.key(for: url, number: 4) == Self.requestKey(url))
        #expect(second.count == 4)
    }
}

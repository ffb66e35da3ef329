import Testing

@testable import PageProxyCore

/// A walk keeps the URLs of its window only, and a digest of each page URL it has seen (attack5 F4: every URL was kept
/// for the whole walk, so 64 KB cursors grew a walk by 64 KB a page).
@Suite struct WalkMemoryTests {
    /// Next links whose cursor is `length` bytes long; page `pages` has none. `cycleTo`: the last page links back
    /// to that page instead.
    static func longCursors(length: Int, pages: Int, cycleTo: Int? = nil) -> FakeTransport {
        FakeTransport { url throws(UpstreamError) in
            let page = (url.queryValue("cursor").map { Int($0.prefix(while: \.isNumber)) ?? 0 }) ?? 1
            func link(_ number: Int) -> String {
                let digits = String(number)
                return "http://api.test/items?cursor=" + digits + String(repeating: "x", count: max(0, length - digits.count))
            }
            let next: String? = page < pages ? link(page + 1) : cycleTo.map(link)
            return .json(#"{"items":[\#(page)],"next":\#(next.map { "\"\($0)\"" } ?? "null")}"#)
        }
    }

    private static var scheme: PaginationScheme { .nextURLInBody(.init()) }

    @Test("a walk of 300 pages whose next links carry 16 KB cursors keeps a few of them, not 300")
    func longCursorsAreNotKept() async throws {
        let length = 16_384
        let walker = PageWalker.make(Self.scheme, transport: Self.longCursors(length: length, pages: 300)) { options in
            options.itemsPath = JSONPath("items")!
            options.concurrency = 4
        }
        var (taken, mostBytes, mostURLs) = (0, 0, 0)
        try await walker.walk { _ in
            taken += 1
            mostBytes = max(mostBytes, walker.keptURLBytes)
            mostURLs = max(mostURLs, walker.keptURLCount)
            return .takeNext
        }
        #expect(taken == 300)
        // Pages known one at a time: the page handed out and the next one, whatever the page count.
        #expect(mostURLs <= 3, "kept up to \(mostURLs) URLs")
        #expect(mostBytes <= 3 * (length + 64), "kept up to \(mostBytes) URL bytes")
        #expect(walker.builtURLCount == 300)
    }

    @Test("a loop of long cursors after 200 pages is still a loop error at the page that repeats")
    func aLoopIsFoundByDigest() async throws {
        let walker = PageWalker.make(Self.scheme, transport: Self.longCursors(length: 4096, pages: 200, cycleTo: 150)) { options in
            options.itemsPath = JSONPath("items")!
        }
        var taken = 0
        await #expect {
            try await walker.walk { _ in
                taken += 1
                return .takeNext
            }
        } throws: { error in
            guard case .loop(let page, let url)? = error as? PaginationError else { return false }
            return page == 201 && url.query?.hasPrefix("cursor=150x") == true
        }
        // Page 200 names the repeat: the walk fails as it takes that page, after the 199 before it.
        #expect(taken == 199)
    }

    @Test("pages known ahead keep the window's URLs only, however many there are")
    func numberedPagesKeepTheWindow() async throws {
        let walker = PageWalker.make(.linkHeader(.init()), transport: LazyPageURLTests.github(last: 2000)) { options in
            options.concurrency = 8
            options.maxPages = 10_000
        }
        var mostURLs = 0
        let pages = try await walker.pages { _ in mostURLs = max(mostURLs, walker.keptURLCount) }
        #expect(pages.count == 2000)
        // The window's 8 pages, as many handed out not yet dropped (dropped in batches), and the last one built.
        #expect(mostURLs <= 2 * 8 + 2, "kept up to \(mostURLs) URLs")
    }

    @Test("the cache key memo keeps no input, however long the URLs: the right keys, at most its capacity of them")
    func theKeyMemoKeepsNoInputs() throws {
        let memo = CacheKeyMemo(capacity: 64)
        let template = CacheKeyTemplate(method: .get, headers: HTTPHeaders(), caFile: nil)
        for page in 0..<100 {
            let url = try #require(PageURL(string: "http://api.test/items?cursor=\(page)" + String(repeating: "x", count: 65_536)))
            #expect(template.key(for: url, memo: memo) == template.key(for: url, memo: nil))
            #expect(template.key(for: url, memo: memo) == template.key(for: url, memo: nil))
            #expect(memo.count <= 64)
        }
        #expect(memo.count >= 1)
    }

    @Test("digests tell apart a URL with no query, an empty query, and the path and query split differently")
    func digestsAreOfTheWholeTarget() {
        let urls = ["http://a.test/x", "http://a.test/x?", "http://a.test/x?a", "http://a.test/x%3Fa", "http://a.test/xa"]
            .compactMap(PageURL.init(string:))
        #expect(urls.count == 5)
        #expect(Set(urls.map(PageURLDigest.init)).count == 5)
        #expect(PageURLDigest(urls[2]) == PageURLDigest(PageURL(string: "http://a.test/x?a")!))
    }
}

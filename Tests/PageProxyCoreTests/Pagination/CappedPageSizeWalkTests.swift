import Testing

@testable import PageProxyCore

/// A client's page size the upstream may cap (attack12 L4, review14 F12/F13): a route that names no size trusts none
/// a client writes, and a walk under such a size learns the cap from its first page and ends at a page short of it,
/// at an empty page, or at a page that repeats the one before (an upstream that answers past its end with its last
/// page), never at `maxPages`.
@Suite struct CappedPageSizeWalkTests {
    /// `total` items `{"id":N}`, at most `cap` a page whatever `per_page` asks (GitHub's and GitLab's 100, DRF's
    /// `max_page_size`), numbered by the size served; past the end `[]`, or the last page again when `clamps`.
    private static func capped(total: Int, cap: Int = 100, clamps: Bool = false) -> FakeTransport {
        FakeTransport { url in
            let size = min(url.integerQueryValue("per_page") ?? 10, cap)
            var page = url.integerQueryValue("page") ?? 1
            if clamps { page = min(page, max(1, (total + size - 1) / size)) }
            return .json(FakePages.body(page: page, pageSize: size, total: total))
        }
    }

    private static func pageNumber(size: Int?) -> PaginationScheme {
        var options = PaginationScheme.PageNumber()
        options.pageSize = size
        return .pageNumber(options)
    }

    @Test("a size is trusted only when the route names one at least as large (review14 F12: a route with none trusted any)")
    func onlyTheRoutesSizeIsTrusted() throws {
        let asked = try #require(PageURL(string: "http://api.test/items?per_page=500"))
        let plain = try #require(PageURL(string: "http://api.test/items"))
        #expect(AskedPageSize.of(asked, parameter: "per_page", route: nil) == (500, false))
        #expect(AskedPageSize.of(asked, parameter: "per_page", route: 100) == (500, false))
        #expect(AskedPageSize.of(asked, parameter: "per_page", route: 500) == (500, true))
        #expect(AskedPageSize.of(plain, parameter: "per_page", route: nil) == (nil, true))
        #expect(AskedPageSize.of(plain, parameter: "per_page", route: 20) == (20, true))
    }

    @Test("a route with no page size and a client's per_page=500 over an upstream capping at 100: the whole list, not page 1 (review14 F12)")
    func aRouteWithNoSizeWalksTheWholeList() async throws {
        let transport = Self.capped(total: 250)
        let walker = PageWalker.make(Self.pageNumber(size: nil), transport: transport, base: "http://api.test/items?per_page=500")
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items == FakePages.expected(total: 250))
    }

    @Test("a route's own size above the upstream's cap, under a stated total: pages numbered by what the first served (real13: 300 of 450)")
    func aRoutesOwnSizeAboveTheCapUnderATotal() async throws {
        let transport = FakeTransport { url in
            let size = min(url.integerQueryValue("per_page") ?? 10, 100)
            let page = url.integerQueryValue("page") ?? 1
            let items = FakePages.body(page: page, pageSize: size, total: 450)
            return .json("{\"count\":450,\"results\":\(items)}")
        }
        var options = PaginationScheme.PageNumber()
        options.pageSize = 200
        options.totalItemsPath = JSONPath("count")
        let results = try #require(JSONPath("results"))
        let walker = PageWalker.make(.pageNumber(options), transport: transport) { $0.itemsPath = results }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items.count == 450)
        #expect(items == FakePages.expected(total: 450))
    }

    @Test("a window on a route with no page size is not placed by a client's size: walked from the first page (review14 F12)")
    func aWindowIsNotPlacedByAClientsSize() throws {
        let base = try #require(PageURL(string: "http://api.test/items?per_page=200"))
        let plan = ItemWindow(offset: 250, limit: 3).plan(scheme: Self.pageNumber(size: nil), base: base)
        #expect(plan.base.queryValue("page") == nil)
        #expect(plan.skip == 250)
        #expect(plan.pageLimit == nil)
    }

    @Test(
        "under a size the upstream caps, a page short of the first page's count ends the walk: no request past it (review14 F13)",
        arguments: [false, true])
    func aPageShortOfTheLearnedCapEndsTheWalk(clamps: Bool) async throws {
        let transport = Self.capped(total: 250, clamps: clamps)
        let walker = PageWalker.make(Self.pageNumber(size: nil), transport: transport, base: "http://api.test/items?per_page=500")
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items == FakePages.expected(total: 250))
        #expect(transport.requestedURLs.count == 3)
    }

    @Test(
        "an upstream that answers past its end with its last page, under an untrusted size and no total: the repeat ends the walk, not maxPages (review14 F13)",
        // The repeat, then the page `maxPages` past it, which repeats the last page too (walk18): one more request.
        arguments: [(45, 20, 50, 3), (200, nil, 500, 4), (250, 20, 60, 5)] as [(Int, Int?, Int, Int)])
    func aRepeatedLastPageEndsTheWalk(total: Int, routeSize: Int?, asked: Int, requests: Int) async throws {
        let transport = Self.capped(total: total, clamps: true)
        let walker = PageWalker.make(Self.pageNumber(size: routeSize), transport: transport, base: "http://api.test/items?per_page=\(asked)") {
            $0.maxPages = 50
        }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items == FakePages.expected(total: total))
        #expect(transport.requestedURLs.count == requests)
        // The page far past repeated the last page: the upstream's habit, not data that repeats; nothing is cut.
        #expect(!walker.wasTruncated && !walker.endedOnRepeat)
    }

    /// walk18: under the route's own size no page was compared, and a last page that fills it, answered again for every
    /// page past the end (Django's `get_page()`), ran the walk to `maxPages` (a 502 after 1,000 requests).
    @Test("under the route's own size, a full last page repeated past the end ends the walk: every item once, two requests past it",
          arguments: [30, 20, 250])
    func aFullLastPageRepeatedUnderTheRoutesSize(total: Int) async throws {
        let transport = Self.capped(total: total, clamps: true)
        let walker = PageWalker.make(Self.pageNumber(size: 10), transport: transport, base: "http://api.test/items") { $0.maxPages = 50 }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items == FakePages.expected(total: total))
        #expect(transport.requestedURLs.count == total / 10 + 2)
        #expect(transport.requestedURLs.last?.description.contains("page=\(total / 10 + 1 + 50)") == true)
        #expect(!walker.wasTruncated && !walker.endedOnRepeat)
    }

    /// retest14 M1: rows with no id that repeat with the page size (a weekday under `per_page=7`) are equal page for page,
    /// as the repeat past the end is: the walk still ends there (nothing tells them apart), but no longer silently.
    @Test("a walk ended at a repeat says it may be cut: wasTruncated and endedOnRepeat (before: 7 of 21 rows, said nowhere)")
    func aRepeatEndedWalkIsFlagged() async throws {
        let transport = FakeTransport { url in
            let page = url.integerQueryValue("page") ?? 1
            return .json("[" + (0..<(page <= 3 ? 7 : 0)).map { "{\"day\":\($0)}" }.joined(separator: ",") + "]")
        }
        let walker = PageWalker.make(Self.pageNumber(size: nil), transport: transport, base: "http://api.test/items?per_page=7")
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items.count == 7)
        #expect(walker.endedOnRepeat)
        #expect(walker.wasTruncated)
        let whole = PageWalker.make(Self.pageNumber(size: nil), transport: Self.capped(total: 250), base: "http://api.test/items?per_page=500")
        _ = try await whole.pages()
        #expect(!whole.endedOnRepeat && !whole.wasTruncated, "a walk ended by a short page is no repeat")
    }

    @Test("constant items with no id are not taken for a repeat: 30 of {\"v\":0} at 10 a page under per_page=50 are walked whole")
    func constantItemsAreWalkedWhole() async throws {
        let transport = FakeTransport { url in
            let page = url.integerQueryValue("page") ?? 1
            return .json("[" + Array(repeating: #"{"v":0}"#, count: page <= 3 ? 10 : 0).joined(separator: ",") + "]")
        }
        let walker = PageWalker.make(Self.pageNumber(size: nil), transport: transport, base: "http://api.test/items?per_page=50")
        #expect(try await walker.pages().flatMap(\.itemBytes).count == 30)
        #expect(transport.requestedURLs.count == 4)
    }

    @Test("pages that share only their first and last items (a pinned header and footer row) are not taken for a repeat (attack14 M1)")
    func pagesAlikeAtTheirEndsAreWalkedWhole() async throws {
        let transport = FakeTransport { url in
            let page = url.integerQueryValue("page") ?? 1
            return .json(page <= 3 ? #"[{"row":"header"},{"page":\#(page)},{"row":"footer"}]"# : "[]")
        }
        let walker = PageWalker.make(Self.pageNumber(size: nil), transport: transport, base: "http://api.test/items?per_page=50")
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items.count == 9)
        #expect(items.contains(Array(#"{"page":3}"#.utf8)))
        #expect(transport.requestedURLs.count == 4)
    }
}

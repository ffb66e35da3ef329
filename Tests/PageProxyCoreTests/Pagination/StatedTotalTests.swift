import Testing

@testable import PageProxyCore

/// Totals an upstream states that the pages do not bear out: fewer pages than stated (attack5 m2: 1000 stated, 3
/// there, all 1000 asked for), and counts past `Int`'s range (attack5 m4: read as no total at all).
@Suite struct StatedTotalTests {
    /// `?page=N` pages of 10 items from a list of `items`, each stating `statedPages` pages (`total_pages`).
    static func shrunk(items: Int, statedPages: String) -> FakeTransport {
        FakeTransport { url throws(UpstreamError) in
            let page = url.integerQueryValue("page") ?? 1
            let body = FakePages.body(page: page, pageSize: 10, total: items)
            return .json(#"{"total_pages":\#(statedPages),"items":\#(body)}"#)
        }
    }

    private static var pagesStated: PaginationScheme {
        var options = PaginationScheme.PageNumber()
        options.totalPagesPath = JSONPath("total_pages")
        return .pageNumber(options)
    }

    @Test("an upstream that states 1000 pages and has 3 is asked for the window past them, not 997 more", arguments: [1, 4, 16])
    func anEmptyPageEndsAWalkShortOfItsTotal(concurrency: Int) async throws {
        let transport = Self.shrunk(items: 25, statedPages: "1000")
        let walker = PageWalker.make(Self.pagesStated, transport: transport) { options in
            options.itemsPath = JSONPath("items")!
            options.concurrency = concurrency
        }
        let items = try await walker.pages().flatMap(\.itemBytes)
        #expect(items == FakePages.expected(total: 25))
        #expect(walker.endedShortOfTotal)
        // Pages 1–3, the empty page 4, and at most the rest of the window in flight when page 4 came back.
        #expect(transport.requestedURLs.count <= 4 + concurrency, "\(transport.requestedURLs.count) requests")
    }

    @Test("a short page before the last is not the end: items deleted meanwhile leave later pages full")
    func aShortPageBeforeTheLastGoesOn() async throws {
        let transport = FakeTransport { url throws(UpstreamError) in
            let page = url.integerQueryValue("page") ?? 1
            let body = page == 2 ? #"[{"id":"short"}]"# : FakePages.body(page: page, pageSize: 10, total: 40)
            return .json(#"{"total_pages":4,"items":\#(body)}"#)
        }
        let walker = PageWalker.make(Self.pagesStated, transport: transport) { $0.itemsPath = JSONPath("items")! }
        let pages = try await walker.pages()
        #expect(pages.map(\.itemCount) == [10, 1, 10, 10])
        #expect(!walker.endedShortOfTotal)
    }

    @Test("an empty last page is the end it was said to be, not a short end")
    func anEmptyLastPageIsNoShortEnd() async throws {
        let transport = Self.shrunk(items: 20, statedPages: "3")
        let walker = PageWalker.make(Self.pagesStated, transport: transport) { $0.itemsPath = JSONPath("items")! }
        #expect(try await walker.pages().map(\.itemCount) == [10, 10, 0])
        #expect(!walker.endedShortOfTotal)
    }

    @Test("an offset walk whose X-Total-Count shrank ends at the first empty page")
    func anOffsetWalkEndsAtAnEmptyPage() async throws {
        let transport = FakeTransport { url throws(UpstreamError) in
            let offset = url.integerQueryValue("offset") ?? 0
            return .json(FakePages.body(page: offset / 10 + 1, pageSize: 10, total: 30), headers: [("X-Total-Count", "5000")])
        }
        var options = PaginationScheme.Offset()
        options.limit = 10
        options.totalItemsHeader = "X-Total-Count"
        let walker = PageWalker.make(.offset(options), transport: transport) { $0.concurrency = 4 }
        #expect(try await walker.pages().flatMap(\.itemBytes) == FakePages.expected(total: 30))
        #expect(transport.requestedURLs.count <= 4 + 4)
    }

    // MARK: counts past Int

    @Test("a total past Int's range is refused at the first page, as Int.max is", arguments: [
        "9223372036854775808", "99999999999999999999999999", "1e30", "1e400", "1E19", #""99999999999999999999""#,
    ])
    func aTotalPastIntIsTooManyPages(total: String) async {
        let transport = Self.shrunk(items: 25, statedPages: total)
        let walker = PageWalker.make(Self.pagesStated, transport: transport) { options in
            options.itemsPath = JSONPath("items")!
            options.maxPages = 50
        }
        await Self.expectRefusedAtTheFirstPage(walker, transport: transport)
    }

    /// The walk fails with `too_many_pages` (maxPages 50) having asked for the first page only.
    private static func expectRefusedAtTheFirstPage(_ walker: PageWalker, transport: FakeTransport) async {
        await #expect {
            _ = try await walker.pages()
        } throws: { error in
            guard case .tooManyPages(50)? = error as? PaginationError else { return false }
            return true
        }
        #expect(transport.requestedURLs.count == 1)
    }

    @Test("a total header and a last link past Int's range are refused at the first page")
    func headerAndLastLinkPastInt() async {
        let huge = "99999999999999999999"
        var offset = PaginationScheme.Offset()
        offset.totalItemsHeader = "X-Total-Count"
        let cases: [(PaginationScheme, [(String, String)])] = [
            (.offset(offset), [("X-Total-Count", huge)]),
            (.linkHeader(.init()), [("Link", #"<http://api.test/items?page=2>; rel="next", <http://api.test/items?page=\#(huge)>; rel="last""#)]),
        ]
        for (scheme, headers) in cases {
            let transport = FakeTransport { _ throws(UpstreamError) in .json(#"[{"id":1}]"#, headers: headers) }
            let walker = PageWalker.make(scheme, transport: transport) { $0.maxPages = 50 }
            await Self.expectRefusedAtTheFirstPage(walker, transport: transport)
        }
    }

    /// review9 B3: a saturated count is a limit for the walk, not a total to tell the client.
    @Test func aTotalPastIntIsNoStatedTotal() throws {
        var options = PaginationScheme.Offset()
        options.totalItemsPath = JSONPath("total")
        for (total, expected) in [("1e30", nil), ("99999999999999999999", nil), ("1000", 1000 as Int?)] {
            let path = try #require(options.totalItemsPath)
            let page = Page(
                number: 1, url: try #require(PageURL(string: "http://api.test/items")), status: .ok, headers: HTTPHeaders(), body: [],
                items: [], values: [path: .number(total)])
            #expect(PaginationScheme.offset(options).totalItems(on: page) == expected, "\(total)")
        }
    }

    /// attack11 L2: a total smaller than the items the first page holds (`-0` with 3 items) is contradicted by the
    /// answer; it is not stated, for a configured total path and a detected one alike.
    @Test func aTotalTheFirstPageExceedsIsNoStatedTotal() throws {
        var options = PaginationScheme.Offset()
        options.totalItemsPath = JSONPath("total")
        let path = try #require(options.totalItemsPath)
        let items = (0..<3).map { JSONItem(range: $0..<($0 + 1), isCompact: true) }
        for (total, expected) in [("-0", nil), ("2", nil), ("3", 3 as Int?), ("4", 4)] {
            let page = Page(
                number: 1, url: try #require(PageURL(string: "http://api.test/items")), status: .ok, headers: HTTPHeaders(), body: [],
                items: items, values: [path: .number(total)])
            #expect(PaginationScheme.offset(options).totalItems(on: page) == expected, "\(total)")
        }
        let url = try #require(PageURL(string: "http://api.test/items"))
        for (body, expected) in [
            (#"{"total":-0,"results":[{},{},{}],"next":"http://api.test/items?page=2"}"#, nil),
            (#"{"count":2,"results":[{},{},{}]}"#, nil), (#"{"count":3,"results":[{},{},{}]}"#, 3 as Int?),
        ] {
            #expect(try SchemeDetector.detect(.json(body), url: url).total == expected, "\(body)")
        }
    }

    @Test("counts in any whole JSON spelling are read; negative and fractional ones are no count")
    func countSpellings() {
        let cases: [(JSONValue, Int?)] = [
            (.number("1000"), 1000), (.number("1e3"), 1000), (.number("1000.0"), 1000), (.number("2.5e1"), 25),
            (.number("9223372036854775807"), Int.max), (.number("1e30"), Int.max), (.number("-1e30"), nil),
            (.number("10.5"), nil), (.number("-3"), nil), (.string("42"), 42), (.string("99999999999999999999"), Int.max),
            (.string("1e3"), nil), (.string("inf"), nil), (.string("nan"), nil), (.string(""), nil), (.null, nil),
        ]
        for (value, count) in cases { #expect(value.statedCount == count, "\(value)") }
        let headers = HTTPHeaders([("X-Total", " 99999999999999999999 "), ("X-Small", "12"), ("X-Bad", "1e3")])
        #expect(headers.statedCount("X-Total") == Int.max)
        #expect(headers.statedCount("X-Small") == 12)
        #expect(headers.statedCount("X-Bad") == nil)
    }
}

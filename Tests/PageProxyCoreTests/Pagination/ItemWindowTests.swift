import Testing

@testable import PageProxyCore

/// Which pages a window needs, per scheme: numbered schemes jump when the page size is known, others walk from the start.
@Suite struct ItemWindowTests {
    private let base = PageURL(string: "http://api.test/items?q=1")!

    @Test func pageNumbersJumpToThePageThatHoldsTheFirstItem() {
        var options = PaginationScheme.PageNumber()
        options.pageSize = 20
        options.totalItemsPath = JSONPath("total")
        let plan = ItemWindow(offset: 45, limit: 20).plan(scheme: .pageNumber(options), base: base)
        #expect(plan.base.queryValue("page") == "3")
        #expect(plan.base.queryValue("per_page") == "20")
        #expect(plan.firstItem == 40)
        #expect(plan.skip == 5)
        #expect(plan.itemLimit == 25)
        #expect(plan.pageLimit == 2)
    }

    @Test func aPageNumberSchemeThatStartsAtZeroJumpsFromZero() {
        var options = PaginationScheme.PageNumber()
        options.pageSize = 10
        options.firstPage = 0
        options.totalItemsPath = JSONPath("total")
        #expect(ItemWindow(offset: 30, limit: 10).plan(scheme: .pageNumber(options), base: base).base.queryValue("page") == "3")
    }

    @Test func offsetsJumpAlignedOnThePageSize() {
        var options = PaginationScheme.Offset()
        options.limit = 20
        options.totalItemsPath = JSONPath("count")
        let plan = ItemWindow(offset: 45, limit: 10).plan(scheme: .offset(options), base: base)
        #expect(plan.base.queryValue("offset") == "40")
        #expect(plan.skip == 5)
        #expect(plan.pageLimit == 1)
    }

    @Test func theClientsOwnPageSizeDecidesUpToTheRoutes() {
        var options = PaginationScheme.PageNumber()
        options.pageSize = 20
        options.totalPagesHeader = "X-Total-Pages"
        let plan = ItemWindow(offset: 45, limit: 10).plan(scheme: .pageNumber(options), base: base.settingQueryValue("10", for: "per_page"))
        #expect(plan.base.queryValue("page") == "5")
        #expect(plan.skip == 5)
        #expect(plan.pageLimit == 2)
    }

    @Test("a client's size above the route's may be past the upstream's cap: no page limit, and no jump but an offset's to the window's own (attack12 L4, retest14 N2)")
    func aClientSizeAboveTheRoutesPlacesNoWindow() {
        var pages = PaginationScheme.PageNumber()
        pages.pageSize = 20
        let numbered = ItemWindow(offset: 45, limit: 10).plan(scheme: .pageNumber(pages), base: base.settingQueryValue("50", for: "per_page"))
        #expect(numbered.base.queryValue("page") == nil)
        #expect(numbered.skip == 45)
        #expect(numbered.pageLimit == nil)
        var offsets = PaginationScheme.Offset()
        offsets.limit = 20
        let offset = ItemWindow(offset: 45, limit: 10).plan(scheme: .offset(offsets), base: base.settingQueryValue("500", for: "limit"))
        // An offset lands on item 45 whatever a page holds: the walk starts there, counting no pages (retest14 N2).
        #expect(offset.base.queryValue("offset") == "45")
        #expect(offset.skip == 0)
        #expect(offset.pageLimit == nil)
    }

    @Test func noJumpWhenTheClientChoseThePageOrTheSizeIsUnknown() {
        var options = PaginationScheme.PageNumber()
        options.pageSize = 20
        let chosen = ItemWindow(offset: 45, limit: 10).plan(scheme: .pageNumber(options), base: base.settingQueryValue("2", for: "page"))
        #expect(chosen.base.queryValue("page") == "2")
        #expect(chosen.skip == 45)
        let unknown = ItemWindow(offset: 45, limit: 10).plan(scheme: .pageNumber(PaginationScheme.PageNumber()), base: base)
        #expect(unknown.base == base)
        #expect(unknown.pageLimit == nil)
        #expect(unknown.itemLimit == 55)
    }

    @Test func linkAndCursorSchemesWalkFromTheStartAndStopAtTheWindowsEnd() {
        var link = PaginationScheme.LinkHeader()
        link.pageSize = 20
        let plan = ItemWindow(offset: 45, limit: 10).plan(scheme: .linkHeader(link), base: base)
        #expect(plan.base == base)
        #expect(plan.skip == 45)
        #expect(plan.pageLimit == 3)
        let cursor = ItemWindow(offset: 45, limit: 10).plan(scheme: .cursorInBody(PaginationScheme.CursorInBody()), base: base)
        #expect(cursor.pageLimit == nil)
        #expect(cursor.itemLimit == 55)
        #expect(ItemWindow(offset: 0, limit: 5).plan(scheme: nil, base: base).itemLimit == 5)
    }

    @Test func hugeWindowsSaturate() {
        var options = PaginationScheme.PageNumber()
        options.pageSize = 7
        let plan = ItemWindow(offset: Int.max - 3, limit: Int.max).plan(scheme: .pageNumber(options), base: base)
        #expect(plan.itemLimit == Int.max)
        #expect(ItemWindow(offset: 5, limit: Int.max).end == Int.max)
    }

    @Test func theCutDropsItemsAcrossPages() throws {
        var cut = ItemWindowCut(skip: 5)
        let bytes = Array("[1,2,3]".utf8)
        var first = Page(
            number: 1, url: base, status: .ok, headers: HTTPHeaders(), body: bytes, items: try JSONScanner().scan(bytes, itemsAt: .root).items,
            values: [:])
        var second = first
        var third = first
        cut.apply(to: &first)
        cut.apply(to: &second)
        cut.apply(to: &third)
        #expect([first.itemCount, second.itemCount, third.itemCount] == [0, 1, 3])
        #expect(second.itemBytes == [Array("3".utf8)])
    }

    @Test func aPageStandsInForOnePastTheEndOnlyAfterAJump() {
        #expect(ItemWindow.Plan.emptyPage(itemsPath: .root) == Array("[]".utf8))
        #expect(ItemWindow.Plan.emptyPage(itemsPath: JSONPath("data.items")!) == Array(#"{"data":{"items":[]}}"#.utf8))
        #expect(ItemWindow.Plan.emptyPage(itemsPath: JSONPath("data.0")!) == nil)
        var options = PaginationScheme.PageNumber()
        options.pageSize = 10
        let jumped = ItemWindow(offset: 30, limit: 5).plan(scheme: .pageNumber(options), base: base)
        #expect(jumped.endStatuses(of: .pageNumber(options)) == [404])
        #expect(ItemWindow(offset: 3, limit: 5).plan(scheme: .pageNumber(options), base: base).endStatuses(of: .pageNumber(options)).isEmpty)
    }
}

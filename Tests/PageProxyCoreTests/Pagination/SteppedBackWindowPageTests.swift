import Testing

@testable import PageProxyCore

/// attack20 I, retest20 #3, review20 H2: a window on a route that names no total starts one page before its own
/// (`ItemWindow.plan`), and its page is read beside that one (`SteppedBackWindowPage`): the same items again are the
/// last page answered past the end, other items after a short page are the upstream's cap.
@Suite struct SteppedBackWindowPageTests {
    private let base = PageURL(string: "http://api.test/items?q=1")!

    /// A page of `ids` (`[{"id":…},…]`) at `page=3&per_page=10`.
    private static func page(_ ids: [Int], number: Int = 1) throws -> Page {
        let body = Array(("[" + ids.map { "{\"id\":\($0)}" }.joined(separator: ",") + "]").utf8)
        let scanned = try ScanPaths(itemsPath: .root, valuePaths: []).scan(body)
        let url = try #require(PageURL(string: "http://api.test/items?page=3&per_page=10"))
        return Page(number: number, url: url, status: .ok, headers: HTTPHeaders(), body: body, items: scanned.items, values: scanned.values)
    }

    @Test("a page-number window with no total named starts one page before its own; with a total, at its own")
    func aPageNumberWindowStepsBackWithNoTotal() {
        var options = PaginationScheme.PageNumber()
        options.pageSize = 10
        let plan = ItemWindow(offset: 20, limit: 10).plan(scheme: .pageNumber(options), base: base)
        #expect(plan.base.queryValue("page") == "2")
        #expect(plan.firstItem == 10)
        #expect(plan.skip == 10)
        #expect(plan.pageLimit == 2)
        #expect(plan.firstPageCheck?.steppedBack == true)
        // The window's page is the list's second: walked from the first, which is no step back for a page number (its
        // walk ends at a short first page, as the merged walk does; fold23b).
        let second = ItemWindow(offset: 12, limit: 5).plan(scheme: .pageNumber(options), base: base)
        #expect(second.firstItem == 0)
        #expect(second.firstPageCheck?.steppedBack == false)
        #expect(ItemWindow(offset: 8, limit: 5).plan(scheme: .pageNumber(options), base: base).firstPageCheck?.steppedBack == false)
        options.totalItemsPath = JSONPath("total")
        let stated = ItemWindow(offset: 20, limit: 10).plan(scheme: .pageNumber(options), base: base)
        #expect(stated.base.queryValue("page") == "3")
        #expect(stated.firstPageCheck?.steppedBack == false)
    }

    @Test("an offset window with no total named starts one page before its own, aligned")
    func anOffsetWindowStepsBackWithNoTotal() {
        var options = PaginationScheme.Offset()
        options.limit = 20
        let plan = ItemWindow(offset: 45, limit: 10).plan(scheme: .offset(options), base: base)
        #expect(plan.base.queryValue("offset") == "20")
        #expect(plan.skip == 25)
        #expect(plan.pageLimit == 2)
        #expect(plan.firstPageCheck?.steppedBack == true)
        #expect(ItemWindow(offset: 5, limit: 10).plan(scheme: .offset(options), base: base).firstPageCheck?.steppedBack == false)
        // The window's page is the list's second: the step back to the first is one too (fix22a LOW).
        let second = ItemWindow(offset: 25, limit: 5).plan(scheme: .offset(options), base: base)
        #expect(second.firstItem == 0)
        #expect(second.firstPageCheck?.steppedBack == true)
    }

    @Test("a short page before the window's holds the first-page check, and the walk asks past it")
    func aShortPageBeforeTheWindowsHolds() throws {
        let scheme = PaginationScheme.pageNumber(.init(pageSize: 10))
        let stepped = ItemWindow.FirstPageCheck(size: 10, firstItem: 10, scheme: scheme, steppedBack: true)
        let short = try Self.page([11, 12, 13])
        #expect(stepped.asksPastShort(short))
        #expect(stepped.holds(short, listGoesOn: true))
        // Without the step back, a short jumped page-number page with no total does not hold (review22 L1).
        #expect(!ItemWindow.FirstPageCheck(size: 10, firstItem: 10, scheme: scheme).holds(short, listGoesOn: true))
        #expect(!stepped.asksPastShort(try Self.page(Array(11...20))))
        #expect(!stepped.asksPastShort(try Self.page([])))
    }

    @Test("the window's page read beside the page before")
    func theWindowsPageBesideThePageBefore() throws {
        var full = SteppedBackWindowPage()
        full.remember(try Self.page(Array(11...20)), short: false, listFirst: false)
        #expect(full.read(try Self.page(Array(11...20), number: 2)) == .repeatedFull)
        // The list's first page again, full or short: not read here, but by the checks of a walk's second page
        // (`IgnoredPageNumber`, `ShortFirstPageRepeat`; review23 M1); other items after it are read as before.
        for (first, short) in [(Array(1...10), false), ([1, 2, 3, 4, 5], true)] {
            var listFirst = SteppedBackWindowPage()
            listFirst.remember(try Self.page(first), short: short, listFirst: true)
            #expect(listFirst.read(try Self.page(first, number: 2)) == nil)
            #expect(!listFirst.isArmed)
        }
        var listFirstCapped = SteppedBackWindowPage()
        listFirstCapped.remember(try Self.page([1, 2, 3, 4]), short: true, listFirst: true)
        #expect(listFirstCapped.read(try Self.page([5, 6, 7, 8], number: 2)) == .cappedAfterShort)
        var fullThenOther = SteppedBackWindowPage()
        fullThenOther.remember(try Self.page(Array(11...20)), short: false, listFirst: false)
        #expect(fullThenOther.read(try Self.page(Array(21...25), number: 2)) == nil)
        var short = SteppedBackWindowPage()
        short.remember(try Self.page([21, 22, 23]), short: true, listFirst: false)
        #expect(short.read(try Self.page([21, 22, 23], number: 2)) == .repeatedShort)
        var capped = SteppedBackWindowPage()
        capped.remember(try Self.page([9, 10, 11, 12]), short: true, listFirst: false)
        #expect(capped.read(try Self.page([13, 14, 15, 16], number: 2)) == .cappedAfterShort)
        var empty = SteppedBackWindowPage()
        empty.remember(try Self.page([21, 22, 23]), short: true, listFirst: false)
        #expect(empty.read(try Self.page([], number: 2)) == nil)
        // Items that look constant repeat while the list goes on: never the page before again.
        var constant = SteppedBackWindowPage()
        let series = try Self.page([1, 1, 1])
        constant.remember(series, short: true, listFirst: false)
        #expect(constant.read(series) == .cappedAfterShort)
    }
}

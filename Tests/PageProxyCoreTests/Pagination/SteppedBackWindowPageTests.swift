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
        // The window's page is the list's second: walked from the first, which is a step back too (fix22a LOW).
        let second = ItemWindow(offset: 12, limit: 5).plan(scheme: .pageNumber(options), base: base)
        #expect(second.firstItem == 0)
        #expect(second.firstPageCheck?.steppedBack == true)
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
        full.remember(try Self.page(Array(11...20)), short: false)
        #expect(full.read(try Self.page(Array(11...20), number: 2)) == .repeatedFull)
        var fullThenOther = SteppedBackWindowPage()
        fullThenOther.remember(try Self.page(Array(11...20)), short: false)
        #expect(fullThenOther.read(try Self.page(Array(21...25), number: 2)) == nil)
        var short = SteppedBackWindowPage()
        short.remember(try Self.page([21, 22, 23]), short: true)
        #expect(short.read(try Self.page([21, 22, 23], number: 2)) == .repeatedShort)
        var capped = SteppedBackWindowPage()
        capped.remember(try Self.page([9, 10, 11, 12]), short: true)
        #expect(capped.read(try Self.page([13, 14, 15, 16], number: 2)) == .cappedAfterShort)
        var empty = SteppedBackWindowPage()
        empty.remember(try Self.page([21, 22, 23]), short: true)
        #expect(empty.read(try Self.page([], number: 2)) == nil)
        // Items that look constant repeat while the list goes on: never the page before again.
        var constant = SteppedBackWindowPage()
        let series = try Self.page([1, 1, 1])
        constant.remember(series, short: true)
        #expect(constant.read(series) == .cappedAfterShort)
    }
}

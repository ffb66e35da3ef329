import Testing

@testable import PageProxyCore

/// review22 T3: `ItemWindow.FirstPageCheck.holds`, each of its rules on its own. A window's first page that does not
/// hold what the size it counted by says is walked again (`ItemWindow.walkingAgain`): a wrong "holds" answers other
/// items under a 200, a wrong "does not hold" costs a walk.
@Suite struct FirstPageCheckTests {
    private static let scheme = PaginationScheme.pageNumber(.init(pageSize: 10, totalItemsPath: JSONPath(components: [.key("total")])))

    /// A first page of `count` items (ids from `from`) stating `total` items in all (none when nil).
    private static func page(_ count: Int, from: Int = 0, total: Int?) throws -> Page {
        let items = (from..<from + count).map { "{\"id\":\($0)}" }.joined(separator: ",")
        let body = Array(("{" + (total.map { "\"total\":\($0)," } ?? "") + "\"items\":[" + items + "]}").utf8)
        let paths = ScanPaths(itemsPath: JSONPath(components: [.key("items")]), valuePaths: [JSONPath(components: [.key("total")])])
        let scanned = try paths.scan(body)
        let url = try #require(PageURL(string: "http://api.test/items?page=3&per_page=10"))
        return Page(number: 1, url: url, status: .ok, headers: HTTPHeaders(), body: body, items: scanned.items, values: scanned.values)
    }

    private static func check(firstItem: Int) -> ItemWindow.FirstPageCheck {
        ItemWindow.FirstPageCheck(size: 10, firstItem: firstItem, scheme: Self.scheme)
    }

    @Test("a page short of the size while the list goes on does not hold; short at the list's end, it does")
    func aShortPageHoldsOnlyAtTheEnd() throws {
        let short = try Self.page(4, total: nil)
        #expect(!ItemWindow.FirstPageCheck(size: 10, firstItem: 0, scheme: nil).holds(short, listGoesOn: true))
        #expect(ItemWindow.FirstPageCheck(size: 10, firstItem: 0, scheme: nil).holds(short, listGoesOn: false))
    }

    @Test("a jumped page longer than the size does not hold (review18 N4)")
    func aLongJumpedPageDoesNotHold() throws {
        #expect(!Self.check(firstItem: 20).holds(try Self.page(12, from: 20, total: 100), listGoesOn: true))
    }

    @Test("a jumped page under a total holds as many items as the total leaves from there")
    func aJumpedPageAgreesWithTheTotal() throws {
        #expect(Self.check(firstItem: 20).holds(try Self.page(10, from: 20, total: 100), listGoesOn: true))
        #expect(Self.check(firstItem: 20).holds(try Self.page(5, from: 20, total: 25), listGoesOn: false))
        // A jump to the last page by a size the upstream caps lands on an earlier page, full where the last is short.
        #expect(!Self.check(firstItem: 20).holds(try Self.page(10, from: 10, total: 25), listGoesOn: false))
    }

    @Test("a jumped page at or past the stated total: empty, it holds; holding items it does not (review22 M1: ids 8–11 as 20–23)")
    func aJumpedPagePastTheTotalHoldsOnlyEmpty() throws {
        #expect(Self.check(firstItem: 20).holds(try Self.page(0, total: 20), listGoesOn: false))
        #expect(Self.check(firstItem: 30).holds(try Self.page(0, total: 20), listGoesOn: false))
        #expect(!Self.check(firstItem: 20).holds(try Self.page(4, from: 8, total: 20), listGoesOn: false))
        #expect(!Self.check(firstItem: 20).holds(try Self.page(4, from: 8, total: 12), listGoesOn: false))
    }

    @Test("a page-number jump to a page short of the size, with no total, does not hold; an offset jump's does (review22 L1)")
    func aShortJumpedPageWithNoTotal() throws {
        let short = try Self.page(4, from: 16, total: nil)
        #expect(!Self.check(firstItem: 40).holds(short, listGoesOn: false))
        #expect(Self.check(firstItem: 40).holds(try Self.page(0, total: nil), listGoesOn: false))
        var offset = PaginationScheme.Offset()
        offset.limit = 10
        #expect(ItemWindow.FirstPageCheck(size: 10, firstItem: 40, scheme: .offset(offset)).holds(short, listGoesOn: false))
    }

    @Test("an offset jump at or past a low stated total: a page holding items does not hold (the upstream's cap or the end, review22 M2; a low total or the last page again, review25 L6), an empty one does")
    func anOffsetJumpPastALowTotal() throws {
        var offset = PaginationScheme.Offset()
        offset.limit = 10
        offset.totalItemsPath = JSONPath(components: [.key("total")])
        let check = ItemWindow.FirstPageCheck(size: 10, firstItem: 20, scheme: .offset(offset))
        #expect(!check.holds(try Self.page(4, from: 20, total: 20), listGoesOn: false))
        #expect(!check.holds(try Self.page(10, from: 20, total: 20), listGoesOn: false))
        #expect(check.isFullPastStatedEnd(try Self.page(10, from: 20, total: 20)))
        #expect(check.holds(try Self.page(0, from: 20, total: 20), listGoesOn: false))
    }
}

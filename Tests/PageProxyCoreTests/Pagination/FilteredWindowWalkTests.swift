import Testing

@testable import PageProxyCore

/// filtwin21: a window's walk over an offset list that hides items of each page. From the list's first item, the
/// window's page count (pages of a size, full of its items) no longer cuts the walk once it shows the filter; a walk
/// that jumped to an offset fails with `windowMetFilter` (walked again from the first page), also when its second page
/// came back empty and only the page asked again after it shows the filter.
@Suite struct FilteredWindowWalkTests {
    /// A DRF-like upstream of `total` positions whose ids are `position + 1`, showing only every `every`-th id, capping a
    /// page at `cap` positions.
    private static func upstream(total: Int, every: Int, cap: Int = .max, statesTotal: Bool = true) -> FakeTransport {
        FakeTransport { url throws(UpstreamError) in
            let offset = url.integerQueryValue("offset") ?? 0
            let limit = min(url.integerQueryValue("limit") ?? 10, cap)
            let ids = offset < total ? (offset..<min(total, offset + limit)).map { $0 + 1 }.filter { $0 % every == 0 } : []
            let count = statesTotal ? #""count": \#(total), "# : ""
            return .json(#"{\#(count)"results": [\#(ids.map { "{\"id\": \($0)}" }.joined(separator: ","))]}"#)
        }
    }

    private static var scheme: PaginationScheme {
        var offset = PaginationScheme.Offset()
        offset.limit = 10
        offset.totalItemsPath = JSONPath("count")
        return .offset(offset)
    }

    private static func ids(_ pages: [Page]) -> [Int] {
        pages.flatMap(\.itemBytes).compactMap { Int(String(decoding: $0, as: UTF8.self).filter(\.isNumber)) }
    }

    /// `_offset=5&_limit=5` over every 2nd id of 30, walked again by the 5 the first page served: 3 pages, 10 items to
    /// hand out; `clientPages`, the client's `_max_pages`.
    private static func windowFromStart(clientPages: Int?) -> PageWalker {
        PageWalker.make(Self.scheme, transport: Self.upstream(total: 30, every: 2)) {
            $0.itemsPath = JSONPath("results")!
            $0.pageLimit = 3
            $0.itemLimit = 10
            $0.windowFromWalkStart = true
            $0.pageLimitOnceFiltered = clientPages
        }
    }

    @Test("from the list's first item, a filter lifts the window's page count: the window's items, not 3 pages' worth")
    func aFilterLiftsTheWindowsPageCount() async throws {
        let walker = Self.windowFromStart(clientPages: nil)
        let items = Self.ids(try await walker.pages())
        #expect(items == [2, 4, 6, 8, 10, 12, 14, 16, 18, 20])
        #expect(!walker.windowMetFilter)
    }

    @Test("the client's _max_pages still cuts it once lifted")
    func theClientsPageCapStillCuts() async throws {
        let walker = Self.windowFromStart(clientPages: 4)
        let pages = try await walker.pages()
        #expect(pages.count == 4)
        #expect(walker.wasTruncated)
    }

    @Test("a jump whose second page is empty and whose page asked again shows the filter fails with windowMetFilter")
    func aJumpThatMeetsTheFilterFails() async throws {
        // `_offset=10&_limit=10` walked again by the 2 its first page served (ids 12, 15 of positions 10…16).
        let transport = Self.upstream(total: 47, every: 3, cap: 7)
        let walker = PageWalker.make(Self.scheme, transport: transport, base: "http://api.test/items?offset=10&limit=10") {
            $0.itemsPath = JSONPath("results")!
            $0.pageLimit = 11
            $0.itemLimit = 10
            $0.windowCheck = ItemWindow.FirstPageCheck(size: 2, firstItem: 10, scheme: Self.scheme)
            $0.servedPageSize = 2
        }
        var mayDeclineAtFirst = false
        await #expect(throws: PaginationError.self) {
            _ = try await walker.pages { page in
                if page.number == 1 { mayDeclineAtFirst = walker.windowMayStillMeetFilter }
            }
        }
        #expect(walker.windowMetFilter)
        #expect(walker.missedWindowPageSize)
        // An NDJSON head waits for the pages that may show the filter.
        #expect(mayDeclineAtFirst)
    }

    /// fix21a (review21 HIGH 1 and 2): with no total, an empty second page after a short first one was the list's end;
    /// a jumped window's walk asks it again with the limit, which shows the filter, even past the window's page count.
    @Test("with no total, a jump's empty second page is asked again with the limit, past the window's page count", arguments: [
        // ids 12 and 15 of positions 10…16; positions 12–13 hide both; asked again, 15 and 18: an item past the first's.
        3,
        // ids 12 and 16; asked again, positions 12–18 hold 16 alone: the first's last item again, no item past it.
        4,
    ])
    func aJumpsEmptySecondPageWithNoTotalIsAskedAgain(every: Int) async throws {
        var offset = PaginationScheme.Offset()
        offset.limit = 10
        // `_offset=10&_limit=5` jumped to 10.
        let walker = PageWalker.make(.offset(offset), transport: Self.upstream(total: 200, every: every, cap: 7, statesTotal: false),
            base: "http://api.test/items?offset=10&limit=10") {
            $0.itemsPath = JSONPath("results")!
            $0.pageLimit = 2
            $0.itemLimit = 5
            $0.windowFirstItem = 10
        }
        await #expect(throws: PaginationError.self) { _ = try await walker.pages() }
        #expect(walker.windowMetFilter)
    }
}

import Testing

@testable import PageProxyCore

/// Pagination stated as JSON in a response header (flask-smorest's and ASP.NET Core's `X-Pagination`): the totals
/// and the next page read from the header's JSON, so that every page is known after the first.
@Suite struct JSONHeaderPaginationTests {
    /// flask-smorest's `@blp.paginate()`: a bare array, `X-Pagination: {"total": …, "total_pages": …, "page": …,
    /// "next_page": …}`; past the last page `[]` and no `page` or `next_page`.
    /// Page 2 is answered only once page 3 is asked for (a bound of yields, no sleep): a walk that knows every page
    /// after the first has both in flight, whatever the scheduling (under AddressSanitizer's slowness the walk's
    /// fetches could each end before the next began).
    private static func smorest(total: Int, pageSize: Int = 10) -> FakeTransport {
        let asked = Locked(Set<Int>())
        return FakeTransport { url in
            let page = Int(url.queryValue("page") ?? "1") ?? 1
            asked.withLock { _ = $0.insert(page) }
            if page == 2 { _ = await yieldUntil { asked.value.contains(3) } }
            let pages = (total + pageSize - 1) / pageSize
            var header = #"{"total": \#(total), "total_pages": \#(pages), "first_page": 1, "last_page": \#(pages)"#
            if page <= pages { header += #", "page": \#(page)"# }
            if page < pages { header += #", "next_page": \#(page + 1)"# }
            return .json(FakePages.body(page: page, pageSize: pageSize, total: total), headers: [("X-Pagination", header + "}")])
        }
    }

    /// ASP.NET Core's habit: `X-Pagination: {"TotalCount":…,"PageSize":…,"CurrentPage":…,"TotalPages":…,"HasNext":…}`.
    private static func aspnet(total: Int, pageSize: Int = 10) -> FakeTransport {
        FakeTransport { url in
            let page = Int(url.queryValue("pageNumber") ?? "1") ?? 1
            let pages = (total + pageSize - 1) / pageSize
            let header = #"{"TotalCount":\#(total),"PageSize":\#(pageSize),"CurrentPage":\#(page),"TotalPages":\#(pages),"HasNext":\#(page < pages)}"#
            return .json(FakePages.body(page: page, pageSize: pageSize, total: total), headers: [("X-Pagination", header)])
        }
    }

    @Test("page-number with totalPagesHeader X-Pagination and totalPagesHeaderPath total_pages: every page known after the first",
          arguments: [1, 10, 45, 50])
    func smorestPageCount(total: Int) async throws {
        var scheme = PaginationScheme.PageNumber()
        scheme.totalPagesHeader = "X-Pagination"
        scheme.totalPagesHeaderPath = JSONPath("total_pages")
        let transport = Self.smorest(total: total)
        let items = try await PageWalker.items(.pageNumber(scheme), transport: transport) { $0.concurrency = 4 }
        #expect(items == FakePages.expected(total: total))
        // No page past the last is asked for, as it is without the count (the walk then stops at a short or empty page).
        #expect(transport.requestedURLs.count == (total + 9) / 10)
        if total > 20 { #expect(transport.peakInFlight > 1) }
    }

    @Test("without the path the JSON header is no count: the walk goes page by page and asks past the end")
    func headerWithoutPathIsNoCount() async throws {
        var scheme = PaginationScheme.PageNumber()
        scheme.totalPagesHeader = "X-Pagination"
        let transport = Self.smorest(total: 50)
        let items = try await PageWalker.items(.pageNumber(scheme), transport: transport) { $0.concurrency = 4 }
        #expect(items == FakePages.expected(total: 50))
        #expect(transport.requestedURLs.count == 6)
        #expect(transport.peakInFlight == 1)
    }

    @Test("page-number with totalItemsHeader and a path (ASP.NET's TotalCount)")
    func aspnetTotalCount() async throws {
        var scheme = PaginationScheme.PageNumber(pageParameter: "pageNumber", sizeParameter: "pageSize", pageSize: 10)
        scheme.totalItemsHeader = "X-Pagination"
        scheme.totalItemsHeaderPath = JSONPath("TotalCount")
        let transport = Self.aspnet(total: 45)
        let items = try await PageWalker.items(.pageNumber(scheme), transport: transport) { $0.concurrency = 4 }
        #expect(items == FakePages.expected(total: 45))
        #expect(transport.requestedURLs.count == 5)
        #expect(PaginationScheme.pageNumber(scheme).totalItems(on: try await firstPage(.pageNumber(scheme), transport)) == 45)
    }

    @Test("offset with totalItemsHeader and a path")
    func offsetHeaderTotal() async throws {
        var scheme = PaginationScheme.Offset(limit: 10)
        scheme.totalItemsHeader = "X-Pagination"
        scheme.totalItemsHeaderPath = JSONPath("meta.total")
        let transport = FakeTransport { url in
            let offset = Int(url.queryValue("offset") ?? "0") ?? 0
            return .json(FakePages.body(page: offset / 10 + 1, pageSize: 10, total: 35), headers: [("X-Pagination", #"{"meta": {"total": "35"}}"#)])
        }
        #expect(try await PageWalker.items(.offset(scheme), transport: transport) == FakePages.expected(total: 35))
        #expect(transport.requestedURLs.count == 4)
    }

    @Test("next-page-header reads next_page from the JSON header and stops where flask-smorest leaves it out")
    func smorestNextPage() async throws {
        var scheme = PaginationScheme.NextPageHeader(nextPageHeader: "X-Pagination", totalPagesHeader: nil)
        scheme.nextPageHeaderPath = JSONPath("next_page")
        let transport = Self.smorest(total: 45)
        #expect(try await PageWalker.items(.nextPageHeader(scheme), transport: transport) == FakePages.expected(total: 45))
        #expect(transport.requestedURLs.count == 5)
        // With the page count too, the pages after the first are known at once.
        scheme.totalPagesHeader = "X-Pagination"
        scheme.totalPagesHeaderPath = JSONPath("total_pages")
        let counted = Self.smorest(total: 45)
        #expect(try await PageWalker.items(.nextPageHeader(scheme), transport: counted) { $0.concurrency = 4 } == FakePages.expected(total: 45))
        #expect(counted.peakInFlight > 1)
    }

    @Test("a header value that is not JSON, not an object, or not a whole number gives no number")
    func unreadableHeaders() {
        let path = JSONPath("total")
        let cases: [(String, Int?)] = [
            (#"{"total": 1000}"#, 1000), (#"{"total": "12"}"#, 12), (#"{"total": -1}"#, nil), (#"{"total": 1.5}"#, nil),
            (#"{"total": null}"#, nil), ("1000", nil), ("{not json", nil), (#"{"other": 3}"#, nil),
        ]
        for (value, expected) in cases {
            var headers = HTTPHeaders()
            headers.add("X-Pagination", value)
            #expect(headers.statedCount("X-Pagination", at: path) == expected, "\(value)")
        }
        var plain = HTTPHeaders()
        plain.add("X-Total-Count", " 7 ")
        #expect(plain.statedCount("X-Total-Count", at: nil) == 7)
        #expect(plain.statedCount("X-Pagination", at: path) == nil)
    }

    private func firstPage(_ scheme: PaginationScheme, _ transport: FakeTransport) async throws -> Page {
        try #require(try await PageWalker.make(scheme, transport: transport).pages().first)
    }
}

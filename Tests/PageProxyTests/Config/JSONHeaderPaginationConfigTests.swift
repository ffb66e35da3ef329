import PageProxyCore
@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer
import Testing

/// The `…HeaderPath` options: a path into the JSON a pagination header holds (flask-smorest's and ASP.NET's
/// `X-Pagination`), beside the header they read.
@Suite struct JSONHeaderPaginationConfigTests {
    private func parse(_ pagination: String) throws -> PaginationScheme? {
        let route = ConfigFixture.route(pagination: pagination, extra: "")
        guard case .scheme(let scheme) = try ConfigFixture.parse(ConfigFixture.document(routes: [route])).routes[0].pagination
        else { return nil }
        return scheme
    }

    @Test func pageNumberReadsTotalsFromAJSONHeader() throws {
        var options = PaginationScheme.PageNumber(sizeParameter: "page_size", pageSize: 100)
        options.totalPagesHeader = "X-Pagination"
        options.totalPagesHeaderPath = JSONPath("total_pages")
        options.totalItemsHeader = "X-Pagination"
        options.totalItemsHeaderPath = JSONPath("total")
        #expect(try parse("""
            { "scheme": "page-number", "sizeParameter": "page_size", "pageSize": 100,
              "totalPagesHeader": "X-Pagination", "totalPagesHeaderPath": "total_pages",
              "totalItemsHeader": "X-Pagination", "totalItemsHeaderPath": "total" }
            """) == .pageNumber(options))
        // A plain count header, as before (X-Total-Count on page-number is new too).
        var plain = PaginationScheme.PageNumber()
        plain.totalItemsHeader = "X-Total-Count"
        #expect(try parse(#"{ "scheme": "page-number", "totalItemsHeader": "X-Total-Count" }"#) == .pageNumber(plain))
    }

    @Test func offsetAndNextPageHeaderReadJSONHeaders() throws {
        var offset = PaginationScheme.Offset()
        offset.totalItemsHeader = "X-Pagination"
        offset.totalItemsHeaderPath = JSONPath("TotalCount")
        #expect(try parse(#"{ "scheme": "offset", "totalItemsHeader": "X-Pagination", "totalItemsHeaderPath": "TotalCount" }"#)
            == .offset(offset))
        var next = PaginationScheme.NextPageHeader(nextPageHeader: "X-Pagination", totalPagesHeader: "X-Pagination")
        next.nextPageHeaderPath = JSONPath("next_page")
        next.totalPagesHeaderPath = JSONPath("total_pages")
        #expect(try parse("""
            { "scheme": "next-page-header", "nextPageHeader": "X-Pagination", "nextPageHeaderPath": "next_page",
              "totalPagesHeader": "X-Pagination", "totalPagesHeaderPath": "total_pages" }
            """) == .nextPageHeader(next))
    }

    @Test("a header path needs its header, and is a valid JSON path", arguments: [
        (#"{ "scheme": "page-number", "totalPagesHeaderPath": "total_pages" }"#, "totalPagesHeaderPath", "totalPagesHeader"),
        (#"{ "scheme": "offset", "totalItemsHeaderPath": "total" }"#, "totalItemsHeaderPath", "X-Pagination"),
        (#"{ "scheme": "next-page-header", "totalPagesHeader": null, "totalPagesHeaderPath": "x" }"#, "totalPagesHeaderPath", "names none"),
        (#"{ "scheme": "page-number", "totalItemsHeader": "X-Pagination", "totalItemsHeaderPath": "a..b" }"#, "totalItemsHeaderPath", "JSON path"),
        (#"{ "scheme": "link-header", "totalPagesHeaderPath": "x" }"#, "totalPagesHeaderPath", "page-number"),
    ])
    func headerPathValidation(pagination: String, field: String, mention: String) {
        ConfigFixture.expectPaginationError(pagination, field: field, mentions: [mention])
    }
}

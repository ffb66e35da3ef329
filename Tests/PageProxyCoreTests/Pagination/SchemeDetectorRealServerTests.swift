import Testing

@testable import PageProxyCore

/// `scheme: "auto"` on first pages as flask-smorest, ASP.NET Core, django-ninja and Litestar write them
/// (scripts/real-upstreams, branch real9).
@Suite struct SchemeDetectorRealServerTests {
    private func detect(_ body: String, url: String = "http://api.test/items", headers: [(String, String)] = []) throws -> DetectedPagination {
        try SchemeDetector.detect(.json(body, headers: headers), url: try #require(PageURL(string: url)))
    }

    private static let item = #"{"id": 1, "name": "thing-1"}"#

    @Test("flask-smorest: a bare array and X-Pagination's total_pages: page-number on the header, total from it")
    func smorest() throws {
        let header = #"{"total": 1000, "total_pages": 10, "first_page": 1, "last_page": 10, "page": 1, "next_page": 2}"#
        let detected = try detect("[\(Self.item)]", url: "http://h/things/?page_size=100", headers: [("X-Pagination", header)])
        var options = PaginationScheme.PageNumber()
        options.totalPagesHeader = "X-Pagination"
        options.totalPagesHeaderPath = JSONPath("total_pages")
        #expect(detected.scheme == .pageNumber(options))
        #expect(detected.total == 1000)
        #expect(detected.totalSource == #"X-Pagination header "total""#)
        #expect(detected.next == "2")
        #expect(detected.evidence == #"X-Pagination header "total_pages""#)
    }

    @Test("ASP.NET Core: TotalPages, TotalCount; the URL's pageNumber is the page parameter")
    func aspnet() throws {
        let header = #"{"TotalCount":1000,"PageSize":100,"CurrentPage":1,"TotalPages":10,"HasNext":true,"HasPrevious":false}"#
        let detected = try detect("[\(Self.item)]", url: "http://h/api/things?pageNumber=1&pageSize=100", headers: [("X-Pagination", header)])
        var options = PaginationScheme.PageNumber(pageParameter: "pageNumber")
        options.totalPagesHeader = "X-Pagination"
        options.totalPagesHeaderPath = JSONPath("TotalPages")
        #expect(detected.scheme == .pageNumber(options))
        #expect(detected.total == 1000)
    }

    @Test("a JSON header with only a total counts pages from it; with only a next page it is next-page-header")
    func partialHeaders() throws {
        let total = try detect("[\(Self.item)]", headers: [("X-Pagination", #"{"TotalCount": 250}"#)])
        guard case .pageNumber(let options)? = total.scheme else { Issue.record("not page-number"); return }
        #expect(options.totalItemsHeader == "X-Pagination")
        #expect(options.totalItemsHeaderPath == JSONPath("TotalCount"))
        let next = try detect("[\(Self.item)]", headers: [("Pagination", #"{"next_page": 2}"#)])
        var header = PaginationScheme.NextPageHeader(nextPageHeader: "Pagination", totalPagesHeader: nil)
        header.nextPageHeaderPath = JSONPath("next_page")
        #expect(next.scheme == .nextPageHeader(header))
        #expect(next.next == "2")
        // Not JSON, or JSON with nothing of these: whether more pages follow cannot be told, so not one page
        // (attack7; MoreSignalledTests).
        #expect(throws: PaginationError.self) { try detect("[\(Self.item)]", headers: [("X-Pagination", "page=2")]) }
        #expect(throws: PaginationError.self) { try detect("[\(Self.item)]", headers: [("X-Pagination", #"{"a": 1}"#)]) }
    }

    @Test("flask-smorest's one-page collection: the header's total is the page's own count, a walk of one page")
    func smorestOnePage() throws {
        let header = #"{"total": 1, "total_pages": 1, "first_page": 1, "last_page": 1, "page": 1}"#
        let detected = try detect("[\(Self.item)]", headers: [("X-Pagination", header)])
        #expect(detected.scheme?.name == "page-number")
        #expect(detected.next == nil)
    }

    @Test("django-ninja: items, then the count, no next: the URL's limit makes it offset, page_size page-number")
    func ninja() throws {
        let body = #"{"items": [\#(Self.item), \#(Self.item)], "count": 1000}"#
        var offset = PaginationScheme.Offset(limit: 100)
        offset.totalItemsPath = JSONPath("count")
        #expect(try detect(body, url: "http://h/ninja/offset?limit=100").scheme == .offset(offset))
        var pages = PaginationScheme.PageNumber(sizeParameter: "page_size", pageSize: 100)
        pages.totalItemsPath = JSONPath("count")
        #expect(try detect(body, url: "http://h/ninja/pages?page_size=100").scheme == .pageNumber(pages))
        var numbered = PaginationScheme.PageNumber()
        numbered.totalItemsPath = JSONPath("count")
        #expect(try detect(body, url: "http://h/ninja/pages?page=1").scheme == .pageNumber(numbered))
        // The URL names neither: still an error, not a silent partial answer.
        #expect(throws: PaginationError.self) { try detect(body, url: "http://h/ninja/pages") }
    }

    @Test("Litestar ClassicPagination: current_page and total_pages; the URL's current_page is the page parameter")
    func litestarClassic() throws {
        let body = #"{"items":[{"id":1}],"page_size":100,"current_page":1,"total_pages":10}"#
        var options = PaginationScheme.PageNumber(pageParameter: "current_page")
        options.totalPagesPath = JSONPath("total_pages")
        #expect(try detect(body, url: "http://h/classic?page_size=100&current_page=1").scheme == .pageNumber(options))
        // A URL that names no page (the handler's defaults): the body's own name, as Litestar's docs name the parameter
        // (review17 B7, attack14 H3: "page" was asked for and ignored, page 1 again and again; it was "page" before).
        guard case .pageNumber(let plain)? = try detect(body).scheme else { Issue.record("not page-number"); return }
        #expect(plain.pageParameter == "current_page")
    }

    @Test("Litestar CursorPagination: the next page's cursor at the root, null on the last page")
    func litestarCursor() throws {
        let detected = try detect(#"{"items":[{"id":1}],"results_per_page":100,"cursor":"100"}"#)
        var options = PaginationScheme.CursorInBody()
        options.cursorPath = JSONPath(components: [.key("cursor")])
        #expect(detected.scheme == .cursorInBody(options))
        #expect(detected.next == "100")
        let last = try detect(#"{"items":[{"id":1}],"results_per_page":100,"cursor":null}"#)
        #expect(last.scheme?.name == "cursor")
        #expect(last.next == nil)
    }
}

import Foundation
import Testing

@testable import PageProxyCore

/// `scheme: "auto"` on first pages as JupyterHub's REST API, Piccolo API's PiccoloCRUD and Mailman 3 write them
/// (scripts/real-upstreams, branch real13).
@Suite struct SchemeDetectorJupyterHubPiccoloTests {
    private func detect(_ body: String, url: String, headers: [(String, String)] = []) throws -> DetectedPagination {
        try SchemeDetector.detect(.json(body, headers: headers), url: try #require(PageURL(string: url)))
    }

    private static func jupyterHub(next: String) -> String {
        #"{"items": [{"users": [], "name": "thing-1", "kind": "group"}, {"users": [], "name": "thing-2", "kind": "group"}], "#
            + #""_pagination": {"offset": 0, "limit": 2, "total": 1000, "next": \#(next)}}"#
    }

    @Test("JupyterHub: the next link at _pagination.next.url, the total at _pagination.total (its first page was the whole answer)")
    func jupyterHub() throws {
        let next = #"{"offset": 2, "limit": 2, "url": "http://h/hub/api/groups?offset=2&limit=2"}"#
        let detected = try detect(Self.jupyterHub(next: next), url: "http://h/hub/api/groups")
        var options = PaginationScheme.NextURLInBody()
        options.nextPath = try #require(JSONPath("_pagination.next.url"))
        // The link numbers pages plainly by offset, so the total lets the walk fetch them concurrently.
        options.totalItemsPath = JSONPath("_pagination.total")
        #expect(detected.scheme == .nextURLInBody(options))
        #expect(detected.itemsPath == JSONPath("items"))
        #expect(detected.total == 1000)
        #expect(detected.next == "http://h/hub/api/groups?offset=2&limit=2")
        // A collection of one page: `"next": null` and a total no larger than the page, the whole answer.
        let one = try detect(Self.jupyterHub(next: "null").replacingOccurrences(of: "1000", with: "2"), url: "http://h/hub/api/groups")
        #expect(one.scheme == nil)
        #expect(one.total == 2)
    }

    @Test("Piccolo API: a Content-Range total and the URL's __page_size make a page-number walk by __page, not page")
    func piccolo() throws {
        let body = #"{"rows":[{"id":1000,"name":"thing-1000"},{"id":999,"name":"thing-999"}]}"#
        let headers = [("Content-Range", "things 0-1/1000")]
        var options = PaginationScheme.PageNumber(pageParameter: "__page", sizeParameter: "__page_size", pageSize: 2)
        options.totalItemsHeader = "Content-Range"
        #expect(try detect(body, url: "http://h/things/?__page_size=2&__range_header=true", headers: headers).scheme == .pageNumber(options))
        // A URL that names the page too keeps it.
        let named = try detect(body, url: "http://h/things/?__page=1&__page_size=2&__range_header=true", headers: headers)
        #expect(named.scheme == .pageNumber(options))
        // Without the header nothing states more: the page is the whole answer, as for any bare page (REAL_UPSTREAMS.md).
        #expect(try detect(body, url: "http://h/things/?__page_size=2").scheme == nil)
    }

    @Test("Mailman 3: total_size is a total, and the URL's count and page number the pages (its first page was the whole answer)")
    func mailman() throws {
        let body = #"{"entries": [{"email": "a@example.com"}, {"email": "b@example.com"}], "http_etag": "\"x\"", "start": 0, "total_size": 1000}"#
        let detected = try detect(body, url: "http://h/3.0/lists/l.example.com/roster/member?count=2&page=1")
        var options = PaginationScheme.PageNumber(sizeParameter: "count", pageSize: 2)
        options.totalItemsPath = JSONPath("total_size")
        #expect(detected.scheme == .pageNumber(options))
        #expect(detected.itemsPath == JSONPath("entries"))
        #expect(detected.total == 1000)
        // No count and page: Mailman answers every entry on one page.
        let all = try detect(body.replacingOccurrences(of: "1000", with: "2"), url: "http://h/3.0/lists/l.example.com/roster/member")
        #expect(all.scheme == nil)
        // A `count` with no page number beside it is not taken for a page size (review16 R7).
        #expect(throws: (any Error).self) { try detect(body, url: "http://h/3.0/lists/l.example.com/roster/member?count=2") }
    }
}

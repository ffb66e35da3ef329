import Testing

@testable import PageProxyCore

/// `scheme: "auto"`: the scheme, items path and total read from first pages as real servers and the mock write them.
@Suite struct SchemeDetectorTests {
    private static let url = PageURL(string: "http://api.test/items")!

    private func detect(_ body: String, headers: [(String, String)] = [], itemsPath: JSONPath? = nil) throws -> DetectedPagination {
        try SchemeDetector.detect(.json(body, headers: headers), url: Self.url, itemsPath: itemsPath)
    }

    private static func path(_ text: String) -> JSONPath { JSONPath(text)! }

    @Test("a bare page whose headers state more pages or items than it holds, with no way on, is not taken for the whole list")
    func statedPagesWithNoWayOnAreNotOnePage() throws {
        let body = #"[{"id":1},{"id":2}]"#
        for header in [("X-Total-Pages", "3"), ("X-WP-TotalPages", "3"), ("X-Page-Count", "2"), ("X-WP-Total", "25"), ("Total-Count", "25")] {
            #expect(throws: PaginationError.self, "\(header)") { try detect(body, headers: [header]) }
        }
        // One page stated, or the page's own count: one page, as before.
        #expect(try detect(body, headers: [("X-Total-Pages", "1")]).scheme == nil)
        #expect(try detect(body, headers: [("X-WP-Total", "2")]).scheme == nil)
    }

    // MARK: The mock's wire formats (MockWireFormats.swift)

    @Test("GitHub: a Link header, items at the root")
    func githubLinkHeader() throws {
        let link = #"<http://127.0.0.1:8081/github/items?page=2>; rel="next", <http://127.0.0.1:8081/github/items?page=13>; rel="last""#
        let detected = try detect(#"[{"id":1},{"id":2}]"#, headers: [("Link", link)])
        #expect(detected.scheme == .linkHeader(.init()))
        #expect(detected.itemsPath == .root)
        #expect(detected.itemCount == 2)
        #expect(detected.next == "http://127.0.0.1:8081/github/items?page=2")
        #expect(detected.headerValue == "auto->link-header")
    }

    @Test("GitLab: Link and X-Next-Page both; the Link header wins, X-Total is the total")
    func gitlabHeaders() throws {
        let detected = try detect(
            #"[{"id":1}]"#, headers: [("X-Next-Page", "2"), ("Link", #"<http://h/x?page=2>; rel="next""#), ("X-Total", "250")])
        #expect(detected.scheme == .linkHeader(.init()))
        #expect(detected.total == 250)
        #expect(detected.totalSource == "X-Total header")
    }

    @Test("X-Next-Page alone is next-page-header; empty on the last page")
    func nextPageHeader() throws {
        #expect(try detect(#"[{"id":1}]"#, headers: [("X-Next-Page", "2")]).scheme == .nextPageHeader(.init()))
        let last = try detect(#"[{"id":1}]"#, headers: [("X-Next-Page", "")])
        #expect(last.scheme == .nextPageHeader(.init()))
        #expect(last.next == nil)
    }

    @Test("DRF (mock and real): next URL, results, count")
    func drf() throws {
        let body = #"{"count":1000,"next":"http://127.0.0.1:8000/api/pages/?page=2","previous":null,"results":[{"id":1,"name":"thing-1"}]}"#
        let detected = try detect(body)
        // The count rides along: the pages the next link numbers (page=2 …) are fetched concurrently.
        #expect(detected.scheme == .nextURLInBody(.init(totalItemsPath: Self.path("count"))))
        #expect(detected.itemsPath == Self.path("results"))
        #expect(detected.total == 1000)
        #expect(detected.totalSource == "count")
        #expect(detected.evidence == #"body "next""#)
    }

    @Test("DRF CursorPagination: a next URL with a cursor in it is still a next URL; no total")
    func drfCursor() throws {
        let detected = try detect(#"{"next":"http://127.0.0.1:8000/api/cursor/?cursor=cD0xMDA%3D","previous":null,"results":[{"id":1}]}"#)
        #expect(detected.scheme == .nextURLInBody(.init()))
        #expect(detected.total == nil)
    }

    @Test("a last page's null next is still a next-url walk, of one page")
    func nullNext() throws {
        let detected = try detect(#"{"count":1,"next":null,"previous":null,"results":[{"id":1}]}"#)
        #expect(detected.scheme == .nextURLInBody(.init(totalItemsPath: Self.path("count"))))
        #expect(detected.next == nil)
    }

    @Test("JSON:API (mock: relative links, meta.total; djangorestframework-jsonapi: meta.pagination.count)")
    func jsonapi() throws {
        var options = PaginationScheme.NextURLInBody()
        options.nextPath = Self.path("links.next")
        let mock = try detect(#"{"data":[{"id":"1"}],"links":{"self":"/jsonapi/items?page%5Bnumber%5D=1","next":"/jsonapi/items?page%5Bnumber%5D=2"},"meta":{"total":250}}"#)
        options.totalItemsPath = Self.path("meta.total")
        #expect(mock.scheme == .nextURLInBody(options))
        #expect(mock.itemsPath == Self.path("data"))
        #expect(mock.total == 250)
        let real = try detect(
            #"{"links":{"first":"http://h/jsonapi/things/?page%5Bnumber%5D=1","next":"http://h/jsonapi/things/?page%5Bnumber%5D=2"},"data":[{"type":"things","id":"1","attributes":{}}],"meta":{"pagination":{"page":1,"pages":10,"count":1000}}}"#)
        options.totalItemsPath = Self.path("meta.pagination.count")
        #expect(real.scheme == .nextURLInBody(options))
        #expect(real.total == 1000)
        #expect(real.totalSource == "meta.pagination.count")
    }

    @Test("Slack: response_metadata.next_cursor is a cursor sent back as cursor; members")
    func slack() throws {
        let detected = try detect(#"{"ok":true,"members":[{"id":"U1"}],"response_metadata":{"next_cursor":"b2Zmc2V0OjIw"}}"#)
        var options = PaginationScheme.CursorInBody()
        options.cursorPath = Self.path("response_metadata.next_cursor")
        #expect(detected.scheme == .cursorInBody(options))
        #expect(detected.itemsPath == Self.path("members"))
        #expect(detected.next == "b2Zmc2V0OjIw")
    }

    @Test("Stripe: has_more, data")
    func stripe() throws {
        let detected = try detect(#"{"object":"list","url":"/v1/items","has_more":true,"data":[{"id":1}]}"#)
        #expect(detected.scheme == .hasMore(.init()))
        #expect(detected.itemsPath == Self.path("data"))
        #expect(detected.next == "starting_after=1")
    }

    @Test("localstripe: has_more after the items, each item with lists of its own; the next page is after the last item's id (real12)")
    func localstripe() throws {
        let items = ["A1", "B2"].map { #"{"id": "cus_\#($0)", "sources": {"data": [], "has_more": false, "object": "list"}}"# }
            .joined(separator: ", ")
        let more = try detect("{\n  \"data\": [\(items)],\n  \"has_more\": true,\n  \"object\": \"list\",\n  \"total_count\": 5\n}")
        #expect(more.scheme == .hasMore(.init()))
        #expect(more.next == "starting_after=cus_B2")
        #expect(more.total == 5)
        let last = try detect("{\"data\": [\(items)], \"has_more\": false, \"object\": \"list\"}")
        #expect(last.scheme == .hasMore(.init()))
        #expect(last.next == nil)
    }

    @Test("a root array with no next: one page")
    func plainSinglePage() throws {
        let detected = try detect(#"[{"id":1},{"id":2}]"#)
        #expect(detected.scheme == nil)
        #expect(detected.schemeName == "single-page")
    }

    @Test("a total larger than the page with no way to the next page is an error, not a partial answer")
    func totalWithoutNext() {
        #expect(throws: PaginationError.self) { try detect(#"{"total_count":250,"incomplete_results":false,"items":[{"id":1}]}"#) }
        #expect(throws: PaginationError.self) { try detect(#"{"total":250,"items":[{"id":1}]}"#) }
    }

    // MARK: Real servers (scripts/real-upstreams)

    @Test("fastapi-pagination Page: a page number and a page count in the body")
    func fastapiPage() throws {
        let detected = try detect(#"{"items":[{"id":1}],"total":1000,"page":1,"size":100,"pages":10}"#)
        var options = PaginationScheme.PageNumber()
        options.totalPagesPath = Self.path("pages")
        #expect(detected.scheme == .pageNumber(options))
        #expect(detected.itemsPath == Self.path("items"))
    }

    @Test("fastapi-pagination links.Page: relative links.next")
    func fastapiLinks() throws {
        let detected = try detect(
            #"{"items":[{"id":1}],"total":1000,"page":1,"size":100,"pages":10,"links":{"first":"/links?size=100&page=1","last":"/links?size=100&page=10","self":"/links?size=100","next":"/links?size=100&page=2","prev":null}}"#)
        #expect(detected.scheme?.name == "next-url")
        #expect(detected.next == "/links?size=100&page=2")
    }

    @Test("fastapi-pagination LimitOffsetPage: offset, limit and total")
    func fastapiOffset() throws {
        let detected = try detect(#"{"items":[{"id":1}],"total":1000,"limit":100,"offset":0}"#)
        var options = PaginationScheme.Offset()
        options.totalItemsPath = Self.path("total")
        #expect(detected.scheme == .offset(options))
    }

    @Test("fastapi-pagination CursorPage: next_page is an opaque cursor, not a URL")
    func fastapiCursor() throws {
        let detected = try detect(
            #"{"items":[{"id":1}],"total":1000,"current_page":"Pg%3D%3D","current_page_backwards":"PGk6MQ%3D%3D","previous_page":null,"next_page":"Pmk6MTAw"}"#)
        var options = PaginationScheme.CursorInBody()
        options.cursorPath = Self.path("next_page")
        #expect(detected.scheme == .cursorInBody(options))
    }

    @Test("GitHub artifacts: the only array of objects among the members is the items")
    func githubArtifacts() throws {
        let detected = try detect(#"{"total_count":296,"artifacts":[{"id":724959170,"name":"build-tar"}]}"#, headers: [("Link", #"<http://h/x?page=2>; rel="next""#)])
        #expect(detected.itemsPath == Self.path("artifacts"))
        #expect(detected.total == 296)
    }

    @Test("no items found: the error names the keys seen and says to set items")
    func itemsNotFound() throws {
        let error = #expect(throws: PaginationError.self) { try detect(#"{"a":1,"b":[1,2],"c":{"d":[]}}"#) }
        let text = error.map(String.init(describing:)) ?? ""
        #expect(text.contains(#""a", "b", "c""#))
        #expect(text.contains(#""items""#))
    }

    @Test("the route's own items path is kept; a wrong one is an error")
    func configuredItems() throws {
        #expect(try detect(#"{"list":[1,2,3]}"#, itemsPath: Self.path("list")).itemCount == 3)
        #expect(throws: PaginationError.self) { try detect(#"{"list":[1]}"#, itemsPath: Self.path("data")) }
    }

    @Test("Google's nextPageToken is sent back as pageToken")
    func googlePageToken() throws {
        guard case .cursorInBody(let options)? = try detect(#"{"items":[{"id":1}],"nextPageToken":"CAE"}"#).scheme else {
            Issue.record("not a cursor")
            return
        }
        #expect(options.cursorParameter == "pageToken")
    }

    @Test("a body that is not JSON is invalid JSON on page 1")
    func invalidJSON() {
        #expect(throws: PaginationError.self) { try detect("<html>") }
    }
}

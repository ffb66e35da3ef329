import PageProxyCore
@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer
import Testing

/// A route's `pagination` object for each of the seven schemes.
@Suite struct PaginationConfigTests {
    private func parse(_ pagination: String) throws -> PaginationScheme? {
        guard case .scheme(let scheme) = try parseRoute(pagination) else { return nil }
        return scheme
    }

    private func parseRoute(_ pagination: String, extra: String = "") throws -> RoutePagination {
        try ConfigFixture.parse(ConfigFixture.document(routes: [ConfigFixture.route(pagination: pagination, extra: extra)]))
            .routes[0].pagination
    }

    private static func path(_ text: String) -> JSONPath { JSONPath(text)! }

    @Test func configKeysMirrorTheSchemeNames() {
        #expect(PaginationConfigParser.keys.map(\.scheme) == PaginationScheme.names)
    }

    @Test func everySchemeDefaults() throws {
        #expect(try parse(#"{ "scheme": "page-number" }"#) == .pageNumber(.init()))
        #expect(try parse(#"{ "scheme": "offset" }"#) == .offset(.init()))
        #expect(try parse(#"{ "scheme": "link-header" }"#) == .linkHeader(.init()))
        #expect(try parse(#"{ "scheme": "next-page-header" }"#) == .nextPageHeader(.init()))
        #expect(try parse(#"{ "scheme": "next-url" }"#) == .nextURLInBody(.init()))
        #expect(try parse(#"{ "scheme": "cursor" }"#) == .cursorInBody(.init()))
        #expect(try parse(#"{ "scheme": "has-more" }"#) == .hasMore(.init()))
    }

    @Test("a page-number route with no pageSize takes the size its upstream URL writes as its own (loose13, after review14 F12)")
    func theUpstreamURLsSizeIsTheRoutes() throws {
        func pageSize(upstream: String, pagination: String = #"{ "scheme": "page-number" }"#) throws -> Int? {
            let document = #"{"routes": [{"name": "r", "upstream": "\#(upstream)", "pagination": \#(pagination)}]}"#
            guard case .scheme(.pageNumber(let options)) = try ConfigFixture.parse(document).routes[0].pagination else { return nil }
            return options.pageSize
        }
        #expect(try pageSize(upstream: "https://api.example.com/items?state=open&per_page=100") == 100)
        #expect(try pageSize(upstream: "https://api.example.com/items?size=30", pagination: #"{ "scheme": "page-number", "sizeParameter": "size" }"#) == 30)
        // The route's own pageSize wins; a size out of pageSize's range, or none, is not taken.
        #expect(try pageSize(upstream: "https://api.example.com/items?per_page=100", pagination: #"{ "scheme": "page-number", "pageSize": 20 }"#) == 20)
        // A size no request could be walked by is refused at load (attack16 L5).
        #expect(throws: ConfigError.self) { try pageSize(upstream: "https://api.example.com/items?per_page=0") }
        #expect(try pageSize(upstream: "https://api.example.com/items?per_page=99999") == nil)
        #expect(try pageSize(upstream: "https://api.example.com/items") == nil)
    }

    @Test func pageNumberRoundTrips() throws {
        var options = PaginationScheme.PageNumber()
        options.pageParameter = "p"
        options.firstPage = 0
        options.sizeParameter = nil
        options.pageSize = 50
        options.totalItemsPath = Self.path("meta.total")
        options.totalPagesPath = Self.path("meta.pages")
        options.totalPagesHeader = "X-Total-Pages"
        options.lookahead = 64
        #expect(try parse("""
            { "scheme": "page-number", "pageParameter": "p", "firstPage": 0, "sizeParameter": null, "pageSize": 50,
              "totalItemsPath": "meta.total", "totalPagesPath": "meta.pages", "totalPagesHeader": "X-Total-Pages",
              "lookahead": 64 }
            """) == .pageNumber(options))
    }

    @Test func offsetRoundTrips() throws {
        var options = PaginationScheme.Offset()
        options.offsetParameter = "skip"
        options.limitParameter = "take"
        options.limit = 10_000
        options.totalItemsPath = Self.path("count")
        options.totalItemsHeader = "X-Total-Count"
        options.lookahead = 2
        #expect(try parse("""
            { "scheme": "offset", "offsetParameter": "skip", "limitParameter": "take", "limit": 10000,
              "totalItemsPath": "count", "totalItemsHeader": "X-Total-Count", "lookahead": 2 }
            """) == .offset(options))
    }

    @Test func linkHeaderRoundTrips() throws {
        var options = PaginationScheme.LinkHeader()
        options.pageParameter = "pg"
        options.sizeParameter = "limit"
        options.pageSize = 1
        #expect(try parse(#"{ "scheme": "link-header", "pageParameter": "pg", "sizeParameter": "limit", "pageSize": 1 }"#)
            == .linkHeader(options))
    }

    @Test func nextPageHeaderRoundTrips() throws {
        var options = PaginationScheme.NextPageHeader()
        options.pageParameter = "page"
        options.nextPageHeader = "X-Next"
        options.totalPagesHeader = nil
        options.sizeParameter = "per"
        options.pageSize = 100
        #expect(try parse("""
            { "scheme": "next-page-header", "pageParameter": "page", "nextPageHeader": "X-Next",
              "totalPagesHeader": null, "sizeParameter": "per", "pageSize": 100 }
            """) == .nextPageHeader(options))
    }

    @Test func nextURLRoundTrips() throws {
        var options = PaginationScheme.NextURLInBody()
        options.nextPath = Self.path("links.next")
        #expect(try parse(#"{ "scheme": "next-url", "nextPath": "links.next" }"#) == .nextURLInBody(options))
    }

    @Test("next-url takes a total, and the numbered schemes the statuses that end a walk")
    func realUpstreamOptionsParse() throws {
        var options = PaginationScheme.NextURLInBody()
        options.totalItemsPath = Self.path("count")
        options.totalPagesPath = Self.path("meta.pages")
        #expect(try parse(#"{ "scheme": "next-url", "totalItemsPath": "count", "totalPagesPath": "meta.pages" }"#) == .nextURLInBody(options))
        var pages = PaginationScheme.PageNumber()
        pages.endStatuses = [404, 410]
        #expect(try parse(#"{ "scheme": "page-number", "endStatuses": [404, 410] }"#) == .pageNumber(pages))
        var offset = PaginationScheme.Offset()
        offset.endStatuses = []
        #expect(try parse(#"{ "scheme": "offset", "endStatuses": [] }"#) == .offset(offset))
        #expect(PaginationScheme.PageNumber().endStatuses == [404])
        for bad in ["[200]", "[\"404\"]", "404"] {
            ConfigFixture.expectPaginationError(#"{ "scheme": "page-number", "endStatuses": \#(bad) }"#, field: "endStatuses", mentions: [])
        }
    }

    /// review21 F3: a route whose total is an estimate (Elasticsearch's `hits.total.value`) says so; a cursor route has no
    /// total to say it of.
    @Test("totalIsEstimate: page-number, offset and next-url take it; other schemes refuse it by name")
    func totalIsEstimateParses() throws {
        var pages = PaginationScheme.PageNumber()
        pages.totalIsEstimate = true
        #expect(try parse(#"{ "scheme": "page-number", "totalIsEstimate": true }"#) == .pageNumber(pages))
        var offset = PaginationScheme.Offset()
        offset.totalIsEstimate = true
        #expect(try parse(#"{ "scheme": "offset", "totalIsEstimate": true }"#) == .offset(offset))
        var next = PaginationScheme.NextURLInBody()
        next.totalIsEstimate = true
        #expect(try parse(#"{ "scheme": "next-url", "totalIsEstimate": true }"#) == .nextURLInBody(next))
        ConfigFixture.expectPaginationError(#"{ "scheme": "offset", "totalIsEstimate": "yes" }"#, field: "totalIsEstimate", mentions: [])
        ConfigFixture.expectPaginationError(#"{ "scheme": "cursor", "totalIsEstimate": true }"#, field: "totalIsEstimate", mentions: ["offset"])
    }

    /// fix22b (review21 HIGH 3): a route whose upstream hides items from its pages says so; other schemes refuse it.
    @Test("filteredPages: offset takes a boolean; other schemes refuse it by name")
    func filteredPagesParses() throws {
        var offset = PaginationScheme.Offset()
        offset.filteredPages = true
        #expect(try parse(#"{ "scheme": "offset", "filteredPages": true }"#) == .offset(offset))
        #expect(try parse(#"{ "scheme": "offset", "filteredPages": false }"#) == .offset(.init()))
        ConfigFixture.expectPaginationError(#"{ "scheme": "offset", "filteredPages": "yes" }"#, field: "filteredPages", mentions: [])
        ConfigFixture.expectPaginationError(#"{ "scheme": "page-number", "filteredPages": true }"#, field: "filteredPages", mentions: ["offset"])
    }

    /// real19 F3: Zendesk's last page names a next link beside `meta.has_more: false`; `morePath` says where that flag is.
    @Test("morePath: next-url and cursor take a JSON path (null for none); \"\" and other schemes are refused by name")
    func morePathParses() throws {
        var next = PaginationScheme.NextURLInBody(nextPath: Self.path("links.next"))
        next.morePath = Self.path("meta.has_more")
        #expect(try parse(#"{ "scheme": "next-url", "nextPath": "links.next", "morePath": "meta.has_more" }"#) == .nextURLInBody(next))
        var cursor = PaginationScheme.CursorInBody()
        cursor.morePath = Self.path("has_more")
        #expect(try parse(#"{ "scheme": "cursor", "morePath": "has_more" }"#) == .cursorInBody(cursor))
        #expect(try parse(#"{ "scheme": "cursor", "morePath": null }"#) == .cursorInBody(.init()))
        ConfigFixture.expectPaginationError(#"{ "scheme": "next-url", "morePath": "" }"#, field: "morePath", mentions: [])
        ConfigFixture.expectPaginationError(#"{ "scheme": "cursor", "morePath": 1 }"#, field: "morePath", mentions: [])
        ConfigFixture.expectPaginationError(#"{ "scheme": "offset", "morePath": "has_more" }"#, field: "morePath", mentions: ["next-url"])
    }

    @Test func cursorRoundTrips() throws {
        var options = PaginationScheme.CursorInBody()
        options.cursorPath = Self.path("meta.cursor")
        options.cursorParameter = "after"
        options.sizeParameter = nil
        options.pageSize = 200
        #expect(try parse("""
            { "scheme": "cursor", "cursorPath": "meta.cursor", "cursorParameter": "after", "sizeParameter": null,
              "pageSize": 200 }
            """) == .cursorInBody(options))
    }

    @Test func hasMoreRoundTrips() throws {
        var options = PaginationScheme.HasMore()
        options.hasMorePath = Self.path("more")
        options.idPath = Self.path("object.0.uid")
        options.afterParameter = "after"
        options.sizeParameter = "count"
        options.pageSize = 25
        #expect(try parse("""
            { "scheme": "has-more", "hasMorePath": "more", "idPath": "object.0.uid", "afterParameter": "after",
              "sizeParameter": "count", "pageSize": 25 }
            """) == .hasMore(options))
    }

    // MARK: Errors

    @Test func schemeIsRequired() {
        ConfigFixture.expectPaginationError(#"{ "pageSize": 5 }"#, field: "scheme", mentions: ["required", "page-number"])
        ConfigFixture.expectPaginationError(#"{ "scheme": 1 }"#, field: "scheme", mentions: ["expected a string"])
    }

    @Test func unknownSchemeListsTheNames() {
        let error = ConfigFixture.expectPaginationError(#"{ "scheme": "pages" }"#, field: "scheme",
                                                        mentions: ["unknown scheme \"pages\""])
        #expect(error?.problem.hasSuffix(
            "expected one of page-number, offset, link-header, next-page-header, next-url, cursor, has-more, auto") == true)
        ConfigFixture.expectPaginationError(#"{ "scheme": "ofset" }"#, field: "scheme", mentions: ["did you mean \"offset\""])
    }

    @Test func keyOfAnotherSchemeSaysWhichSchemeItBelongsTo() {
        ConfigFixture.expectPaginationError(#"{ "scheme": "link-header", "limit": 20 }"#, field: "limit",
                                            mentions: ["the offset scheme", "not of link-header",
                                                       "pageParameter, sizeParameter, pageSize"])
        ConfigFixture.expectPaginationError(#"{ "scheme": "next-url", "pageSize": 20 }"#, field: "pageSize",
                                            mentions: ["page-number", "has-more", "schemes", "not of next-url"])
    }

    @Test func invalidJSONPath() {
        ConfigFixture.expectPaginationError(#"{ "scheme": "next-url", "nextPath": ".next" }"#, field: "nextPath",
                                            mentions: ["\".next\"", "not a valid JSON path"])
        ConfigFixture.expectPaginationError(#"{ "scheme": "offset", "totalItemsPath": "a." }"#, field: "totalItemsPath",
                                            mentions: ["not a valid JSON path"])
        ConfigFixture.expectPaginationError(#"{ "scheme": "cursor", "cursorPath": null }"#, field: "cursorPath",
                                            mentions: ["expected a string", "null"])
    }

    @Test(arguments: [
        (#"{ "scheme": "link-header", "pageSize": 0 }"#, "pageSize", "1...10000"),
        (#"{ "scheme": "cursor", "pageSize": 10001 }"#, "pageSize", "1...10000"),
        (#"{ "scheme": "offset", "limit": 0 }"#, "limit", "1...10000"),
        (#"{ "scheme": "offset", "lookahead": 65 }"#, "lookahead", "0...64"),
        (#"{ "scheme": "page-number", "lookahead": -1 }"#, "lookahead", "0...64"),
        (#"{ "scheme": "page-number", "firstPage": 2 }"#, "firstPage", "0...1"),
        (#"{ "scheme": "page-number", "pageParameter": "" }"#, "pageParameter", "empty"),
        (#"{ "scheme": "page-number", "pageParameter": null }"#, "pageParameter", "expected a string"),
        (#"{ "scheme": "has-more", "afterParameter": "a&b" }"#, "afterParameter", "query parameter"),
        (#"{ "scheme": "next-page-header", "nextPageHeader": "X Next" }"#, "nextPageHeader", "header name"),
        (#"{ "scheme": "offset", "totalItemsHeader": "a:b" }"#, "totalItemsHeader", "header name"),
        (#"{ "scheme": "link-header", "pageSize": true }"#, "pageSize", "boolean true"),
    ])
    func optionValidation(pagination: String, field: String, mention: String) {
        ConfigFixture.expectPaginationError(pagination, field: field, mentions: [mention])
    }

    @Test func nullPageSizeKeepsTheUpstreamDefault() throws {
        #expect(try parse(#"{ "scheme": "link-header", "pageSize": null }"#) == .linkHeader(.init()))
    }

    @Test("scheme auto takes no options, and keeps the route's items when it names them")
    func autoScheme() throws {
        #expect(try parseRoute(#"{ "scheme": "auto" }"#) == .auto(itemsPath: nil))
        #expect(try parseRoute(#"{ "scheme": "auto" }"#, extra: #""items": "data""#) == .auto(itemsPath: Self.path("data")))
        ConfigFixture.expectPaginationError(#"{ "scheme": "auto", "pageSize": 10 }"#, field: "pageSize", mentions: ["auto"])
        ConfigFixture.expectPaginationError(#"{ "scheme": "atuo" }"#, field: "scheme", mentions: ["did you mean \"auto\""])
    }

    @Test("endStatuses leaves out statuses that say the upstream failed for now: 408, 429 and 5xx (attack14 L3), with a warning, not a refusal: a config that had them still loads after the upgrade (review19 R5)")
    func endStatusesIgnoreTemporaryFailures() throws {
        for bad in [408, 429, 500, 503] {
            let config = try ConfigFixture.parse(ConfigFixture.document(routes: [
                ConfigFixture.route(pagination: #"{ "scheme": "page-number", "endStatuses": [404, \#(bad)] }"#),
            ]))
            var options = PaginationScheme.PageNumber()
            options.endStatuses = [404]
            #expect(config.routes[0].pagination == .scheme(.pageNumber(options)))
            #expect(config.warnings.count == 1)
            let warning = try #require(config.warnings.first)
            #expect(warning.field == "routes[0].pagination.endStatuses")
            #expect(warning.problem.contains("\(bad) ignored") && warning.problem.contains("failed for now"), "\(warning.problem)")
        }
        #expect(try ConfigFixture.parse(ConfigFixture.document()).warnings.isEmpty)
        var options = PaginationScheme.Offset()
        options.endStatuses = [400, 404, 410, 416]
        #expect(try parse(#"{ "scheme": "offset", "endStatuses": [400, 404, 410, 416] }"#) == .offset(options))
    }

    @Test("endStatuses of refused statuses only keeps the default [404], not [] (retest15: a 404 past the end then failed the walk), and the warning says what it is")
    func endStatusesOfRefusedStatusesOnlyKeepTheDefault() throws {
        for (written, kept, says) in [("[429]", [404], "it is [404] (the default)"), ("[408, 503]", [404], "it is [404] (the default)"),
                                      ("[410, 503]", [410], "it is [410]")] {
            let config = try ConfigFixture.parse(ConfigFixture.document(routes: [
                ConfigFixture.route(pagination: #"{ "scheme": "offset", "endStatuses": \#(written) }"#),
            ]))
            var options = PaginationScheme.Offset()
            options.endStatuses = Set(kept)
            #expect(config.routes[0].pagination == .scheme(.offset(options)))
            #expect(config.warnings.first?.problem.hasSuffix(says) == true, "\(config.warnings.first?.problem ?? "")")
        }
        var none = PaginationScheme.Offset()
        none.endStatuses = []
        #expect(try parse(#"{ "scheme": "offset", "endStatuses": [] }"#) == .offset(none))
    }

    @Test("one query parameter cannot be both the page and the size, the offset and the limit, the cursor and the size (attack14 L5)")
    func schemeParametersDiffer() {
        ConfigFixture.expectPaginationError(
            #"{ "scheme": "page-number", "pageParameter": "per_page", "sizeParameter": "per_page" }"#, field: "sizeParameter",
            mentions: ["\"per_page\" is also the pageParameter"])
        ConfigFixture.expectPaginationError(
            #"{ "scheme": "offset", "offsetParameter": "n", "limitParameter": "n" }"#, field: "limitParameter", mentions: ["offsetParameter"])
        ConfigFixture.expectPaginationError(
            #"{ "scheme": "link-header", "sizeParameter": "page" }"#, field: "sizeParameter", mentions: ["pageParameter"])
        ConfigFixture.expectPaginationError(
            #"{ "scheme": "cursor", "cursorParameter": "limit" }"#, field: "sizeParameter", mentions: ["cursorParameter"])
        ConfigFixture.expectPaginationError(
            #"{ "scheme": "has-more", "sizeParameter": "starting_after" }"#, field: "sizeParameter", mentions: ["afterParameter"])
    }

    @Test("a path to a next link, cursor, flag or total must name a member, not the whole page (attack14 L5)", arguments: [
        ("next-url", "nextPath"), ("next-url", "totalItemsPath"), ("page-number", "totalItemsPath"), ("offset", "totalItemsPath"),
        ("cursor", "cursorPath"), ("has-more", "hasMorePath"),
    ])
    func valuePathsNameAMember(scheme: String, field: String) {
        ConfigFixture.expectPaginationError(#"{ "scheme": "\#(scheme)", "\#(field)": "" }"#, field: field, mentions: ["must name a member"])
    }
}

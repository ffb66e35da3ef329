import PageProxyCore
@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer
import Testing

/// `"queryEncoding": "rison"`: a page-number or offset route whose parameters are members of a Rison `q`
/// (Flask-AppBuilder, Superset; real15), read from config text, and the mistakes said at the field that holds them.
@Suite struct QueryEncodingConfigTests {
    private static let fab = #"{ "scheme": "page-number", "queryEncoding": "rison", "pageParameter": "q.page", "sizeParameter": "q.page_size", "firstPage": 0, "totalItemsPath": "count" }"#

    private func route(_ pagination: String, upstream: String = #""http://example.com/api/v1/thing/""#) throws -> RouteConfig {
        try ConfigFixture.parse(ConfigFixture.document(routes: [ConfigFixture.route(upstream: upstream, pagination: pagination)])).routes[0]
    }

    @Test func queryMembersOfQ() throws {
        let parsed = try route(Self.fab)
        #expect(parsed.queryMembers == QueryMembers(names: ["q.page", "q.page_size"]))
        guard case .scheme(.pageNumber(let options)) = parsed.pagination else { Issue.record("not page-number"); return }
        #expect(options.pageParameter == "q.page" && options.sizeParameter == "q.page_size")
        // Without the option a dotted name is a plain parameter's, as before.
        #expect(try route(#"{ "scheme": "page-number", "pageParameter": "q.page" }"#).queryMembers == nil)
        // Offset routes too.
        let offset = try route(#"{ "scheme": "offset", "queryEncoding": "rison", "offsetParameter": "q.offset", "limitParameter": "limit" }"#)
        #expect(offset.queryMembers?.members == ["offset"])
    }

    @Test func upstreamQIsLiftedSoItsSizeIsTheRoutes() throws {
        let parsed = try route(Self.fab, upstream: #""http://example.com/api/v1/thing/?q=(order_column:id,page_size:100)&x=1""#)
        #expect(parsed.upstream.query == "q=(order_column:id)&x=1&q.page_size=100")
        guard case .scheme(.pageNumber(let options)) = parsed.pagination else { Issue.record("not page-number"); return }
        #expect(options.pageSize == 100)
        #expect(try route(Self.fab, upstream: #""http://example.com/t/?q=(page_size:25)""#).upstream.query == "q.page_size=25")
    }

    @Test func mistakesAreSaidAtTheirField() {
        let field = "routes[0].pagination.queryEncoding"
        ConfigFixture.expectError(
            ConfigFixture.document(routes: [ConfigFixture.route(pagination: #"{ "scheme": "page-number", "queryEncoding": "json5" }"#)]),
            field: field, mentions: ["json5", "rison"])
        ConfigFixture.expectError(
            ConfigFixture.document(routes: [ConfigFixture.route(pagination: #"{ "scheme": "page-number", "queryEncoding": "rison" }"#)]),
            field: field, mentions: ["q.page", "name none"])
        ConfigFixture.expectError(
            ConfigFixture.document(routes: [ConfigFixture.route(pagination: #"{ "scheme": "link-header", "queryEncoding": "rison" }"#)]),
            field: "routes[0].pagination.queryEncoding", mentions: ["page-number", "offset"])
        ConfigFixture.expectError(
            ConfigFixture.document(routes: [ConfigFixture.route(upstream: #""http://example.com/t/?q=(page:0""#, pagination: Self.fab)]),
            field: "routes[0].upstream", mentions: ["not Rison"])
    }
}

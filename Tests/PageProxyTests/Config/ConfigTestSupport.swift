@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer
import Testing

/// Builders for small `config.json` documents and a helper that asserts on the `ConfigError` they produce.
enum ConfigFixture {
    static let defaultPagination = #"{ "scheme": "link-header" }"#

    /// One route as JSON; every argument is a raw JSON fragment, `extra` further members (without a leading comma).
    static func route(
        name: String = #""r""#, upstream: String = #""http://example.com/items""#,
        pagination: String = defaultPagination, extra: String = ""
    ) -> String {
        var members = [#""name": \#(name)"#, #""upstream": \#(upstream)"#, #""pagination": \#(pagination)"#]
        if !extra.isEmpty { members.append(extra) }
        return "{ " + members.joined(separator: ", ") + " }"
    }

    /// A whole document with `routes` and any `top` members (without a trailing comma).
    static func document(routes: [String] = [route()], top: String = "") -> String {
        let routesMember = #""routes": [\#(routes.joined(separator: ", "))]"#
        return top.isEmpty ? "{ \(routesMember) }" : "{ \(top), \(routesMember) }"
    }

    static func parse(_ json: String, environment: [String: String] = [:]) throws(ConfigError) -> Config {
        try ConfigLoader.parse(Array(json.utf8), file: "config.json", environment: environment)
    }

    /// The one route of a document whose only route has the given `extra` members.
    static func route(extra: String, environment: [String: String] = [:]) throws(ConfigError) -> RouteConfig {
        try parse(document(routes: [route(extra: extra)]), environment: environment).routes[0]
    }

    /// Expects `json` to be rejected at `field` with a problem containing each of `mentions`.
    @discardableResult
    static func expectError(
        _ json: String, field: String, mentions: [String] = [], environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ConfigError? {
        let error = #expect(throws: ConfigError.self, sourceLocation: sourceLocation) {
            try parse(json, environment: environment)
        }
        guard let error else { return nil }
        #expect(error.file == "config.json", sourceLocation: sourceLocation)
        #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
        for word in mentions {
            #expect(error.problem.contains(word), "\(error) should mention \(word)", sourceLocation: sourceLocation)
        }
        return error
    }

    /// Expects the route with the given `extra` members to be rejected at `routes[0].<field>`.
    @discardableResult
    static func expectRouteError(
        extra: String, field: String, mentions: [String] = [], environment: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ConfigError? {
        expectError(document(routes: [route(extra: extra)]), field: "routes[0].\(field)", mentions: mentions,
                    environment: environment, sourceLocation: sourceLocation)
    }

    /// Expects a route with the given pagination object to be rejected at `routes[0].pagination.<field>`.
    @discardableResult
    static func expectPaginationError(
        _ pagination: String, field: String, mentions: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) -> ConfigError? {
        expectError(document(routes: [route(pagination: pagination)]), field: "routes[0].pagination.\(field)",
                    mentions: mentions, sourceLocation: sourceLocation)
    }
}

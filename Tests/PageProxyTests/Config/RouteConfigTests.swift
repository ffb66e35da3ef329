import PageProxyCore
@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer
import Testing

/// A route's name, upstream, items path and limits.
@Suite struct RouteConfigTests {
    private func expectNameError(_ name: String, mentions: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        ConfigFixture.expectError(ConfigFixture.document(routes: [ConfigFixture.route(name: name)]),
                                  field: "routes[0].name", mentions: mentions, sourceLocation: sourceLocation)
    }

    private func expectUpstreamError(
        _ url: String, mentions: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) -> ConfigError? {
        ConfigFixture.expectError(ConfigFixture.document(routes: [ConfigFixture.route(upstream: "\"\(url)\"")]),
                                  field: "routes[0].upstream", mentions: mentions, sourceLocation: sourceLocation)
    }

    // MARK: Name

    @Test func nameRules() throws {
        expectNameError(#""""#, mentions: ["1 to 64"])
        expectNameError("\"" + String(repeating: "a", count: 65) + "\"", mentions: ["1 to 64", "65"])
        expectNameError(#""a/b""#, mentions: ["\"a/b\"", "letters, digits"])
        expectNameError(#""café""#, mentions: ["letters, digits"])
        // A control character is escaped in the message, not echoed raw (attack13: a NUL written to the terminal).
        expectNameError(#""a\u0000b\u001bc""#, mentions: [#""a\u0000b\u001bc""#, "letters, digits"])
        let raw = ConfigFixture.expectError(
            ConfigFixture.document(routes: [ConfigFixture.route(name: #""a\u0000b""#)]), field: "routes[0].name")
        #expect(raw?.description.unicodeScalars.contains { $0.value < 0x20 } == false)
        expectNameError("7", mentions: ["expected a string"])
        let longest = String(repeating: "z", count: 64)
        let config = try ConfigFixture.parse(ConfigFixture.document(routes: [ConfigFixture.route(name: "\"\(longest)\"")]))
        #expect(config.routes[0].name == longest)
    }

    @Test(arguments: ["healthz", "readyz", "metrics"])
    func reservedNames(name: String) {
        expectNameError("\"\(name)\"", mentions: ["reserved"])
    }

    @Test("a route named . or .. could never be reached: clients remove dot segments (attack14 L5)", arguments: [".", ".."])
    func dotSegmentNames(name: String) throws {
        expectNameError("\"\(name)\"", mentions: ["dot segment"])
        #expect(try ConfigFixture.parse(ConfigFixture.document(routes: [ConfigFixture.route(name: "\"\(name)x\"")])).routes[0].name == name + "x")
    }

    @Test func duplicateNamesNameBothIndices() {
        let json = ConfigFixture.document(routes: [
            ConfigFixture.route(name: #""a""#), ConfigFixture.route(name: #""b""#), ConfigFixture.route(name: #""a""#),
        ])
        ConfigFixture.expectError(json, field: "routes[2].name", mentions: ["duplicate", "\"a\"", "routes[0]", "routes[2]"])
    }

    @Test func requiredFields() {
        ConfigFixture.expectError(#"{ "routes": [{ "upstream": "http://x/", "pagination": { "scheme": "offset" } }] }"#,
                                  field: "routes[0].name", mentions: ["required"])
        ConfigFixture.expectError(#"{ "routes": [{ "name": "a", "pagination": { "scheme": "offset" } }] }"#,
                                  field: "routes[0].upstream", mentions: ["required"])
        ConfigFixture.expectError(#"{ "routes": [{ "name": "a", "upstream": "http://x/" }] }"#,
                                  field: "routes[0].pagination", mentions: ["required"])
    }

    // MARK: Upstream

    @Test func upstreamParts() throws {
        func parse(_ url: String) throws -> UpstreamURL {
            try ConfigFixture.parse(ConfigFixture.document(routes: [ConfigFixture.route(upstream: "\"\(url)\"")]))
                .routes[0].upstream
        }
        #expect(try parse("https://api.github.com") == UpstreamURL(
            text: "https://api.github.com", scheme: "https", host: "api.github.com", port: 443, path: "/", query: nil))
        #expect(try parse("HTTP://h:81?x=1") == UpstreamURL(
            text: "HTTP://h:81?x=1", scheme: "http", host: "h", port: 81, path: "/", query: "x=1"))
        #expect(try parse("http://10.0.0.1:8081/a/b%20c/") == UpstreamURL(
            text: "http://10.0.0.1:8081/a/b%20c/", scheme: "http", host: "10.0.0.1", port: 8081, path: "/a/b%20c/",
            query: nil))
    }

    @Test(arguments: [
        ("ftp://example.com/", "http or https"),
        ("example.com/items", "absolute"),
        ("/items", "absolute"),
        ("http:/example.com", "absolute"),
        ("http:///items", "host"),
        ("http://exa mple.com/", "spaces"),
        ("http://example.com:0/", "host[:port]"),
        ("http://example.com:65536/", "host[:port]"),
        ("http://example.com:+80/", "host[:port]"),
        ("http://example.com:/", "host[:port]"),
        ("http://example.com/items#top", "fragment"),
        ("http://[::1/", "host[:port]"),
    ])
    func invalidUpstreams(url: String, mention: String) {
        _ = expectUpstreamError(url, mentions: [mention])
    }

    @Test func credentialsInUpstreamAreRejectedWithoutEchoingThePassword() {
        let error = expectUpstreamError("https://alice:s3cr3t-pw@api.example.com/items", mentions: ["credentials", "headers"])
        #expect(error?.description.contains("s3cr3t-pw") == false)
    }

    // MARK: Items and limits

    @Test func itemsPath() throws {
        #expect(try ConfigFixture.route(extra: #""items": "data.0.list""#).itemsPath
            == JSONPath(components: [.key("data"), .index(0), .key("list")]))
        #expect(try ConfigFixture.route(extra: #""items": "$""#).itemsPath == .root)
        ConfigFixture.expectRouteError(extra: #""items": "data..list""#, field: "items",
                                       mentions: ["\"data..list\"", "not a valid JSON path"])
        ConfigFixture.expectRouteError(extra: #""items": 3"#, field: "items", mentions: ["expected a string"])
    }

    @Test(arguments: [
        ("concurrency", "0", "1...64"), ("concurrency", "65", "1...64"),
        ("maxPages", "0", "1...1000000"), ("maxPages", "1000001", "1...1000000"),
        ("maxItems", "0", "≥ 1"),
        ("pageTimeoutSeconds", "0", "1...3600"), ("pageTimeoutSeconds", "3601", "1...3600"),
        ("totalTimeoutSeconds", "0", "1...86400"), ("totalTimeoutSeconds", "86401", "1...86400"),
        ("ttlSeconds", "-1", "0...31536000"), ("ttlSeconds", "31536001", "0...31536000"),
        ("maxPageBytes", "1023", "1024...1073741824"), ("maxPageBytes", "1073741825", "1024...1073741824"),
        ("retries", "-1", "0...10"), ("retries", "11", "0...10"),
        ("maxMergedBytes", "1023", "1024...1099511627776"), ("maxMergedBytes", "1099511627777", "1024...1099511627776"),
        ("maxRetryAfterSeconds", "-1", "0...86400"), ("maxRetryAfterSeconds", "86401", "0...86400"),
        ("staleIfError", "\"yes\"", "true or false"),
        ("caFile", "\"\"", "empty"), ("caFile", "false", "expected a string"),
        ("caFile", "\"/nonexistent/ca.pem\"", "could not load CA file /nonexistent/ca.pem"),
    ])
    func routeLimits(key: String, value: String, mention: String) {
        ConfigFixture.expectRouteError(extra: #""\#(key)": \#(value)"#, field: key, mentions: [mention])
    }

    @Test func maxItemsNullMeansNoLimit() throws {
        #expect(try ConfigFixture.route(extra: #""maxItems": null"#).maxItems == nil)
        #expect(try ConfigFixture.route(extra: #""maxItems": 1"#).maxItems == 1)
        #expect(try ConfigFixture.route(extra: #""caFile": null"#).caFile == nil)
    }

    /// attack16 L5: a route whose own query repeats or breaks a page or size parameter made every request a 400 that
    /// blamed the client.
    @Test("an upstream query that repeats or breaks the page or size parameter is refused at load", arguments: [
        ("?page=1&page=2", "page"), ("?per_page=abc", "per_page"), ("?per_page=3&per_page=4", "per_page"), ("?page=2abc", "page"),
    ])
    func upstreamPaginationQueryIsChecked(query: String, parameter: String) throws {
        let route = ConfigFixture.route(upstream: "\"http://example.com/items\(query)\"", pagination: #"{ "scheme": "page-number" }"#)
        ConfigFixture.expectError(ConfigFixture.document(routes: [route]), field: "routes[0].upstream", mentions: [parameter, "every request"])
        let once = ConfigFixture.route(upstream: #""http://example.com/items?page=1&per_page=3""#, pagination: #"{ "scheme": "page-number" }"#)
        #expect(try ConfigFixture.parse(ConfigFixture.document(routes: [once])).routes.count == 1)
    }

    /// retest16 N5: the refusal quoted the value of a secret-named page parameter (CI logs).
    @Test("an upstream query refused at load does not print a secret-named parameter's value")
    func refusedUpstreamQueryHidesSecretValues() throws {
        let route = ConfigFixture.route(
            upstream: #""http://example.com/items?page_token=SECRETV1""#, pagination: #"{ "scheme": "page-number", "pageParameter": "page_token" }"#)
        let error = ConfigFixture.expectError(ConfigFixture.document(routes: [route]), field: "routes[0].upstream", mentions: ["page_token", "every request"])
        #expect(error?.problem.contains("SECRETV1") == false)
    }

    /// attack16 U1: check-config quoted a malformed upstream whole, its token included (CI logs).
    @Test("a malformed upstream is quoted with its secret query values redacted")
    func malformedUpstreamHidesItsToken() throws {
        let route = ConfigFixture.route(upstream: #""http//127.0.0.1/x?token=SEC2&a=1""#)
        let error = ConfigFixture.expectError(ConfigFixture.document(routes: [route]), field: "routes[0].upstream", mentions: ["token=REDACTED"])
        #expect(error?.problem.contains("SEC2") == false)
    }

    /// attack16 U1: `${VAR}` in `upstream` was sent literally.
    @Test("an upstream's ${NAME} is expanded from the environment, as a header's is; unset, it is an error")
    func upstreamExpandsEnvironmentVariables() throws {
        let route = ConfigFixture.route(upstream: #""http://example.com/items?token=${A16_TOKEN}&a=1""#)
        let parsed = try ConfigFixture.parse(ConfigFixture.document(routes: [route]), environment: ["A16_TOKEN": "tok-1"])
        #expect(parsed.routes[0].upstream.query == "token=tok-1&a=1")
        ConfigFixture.expectError(ConfigFixture.document(routes: [route]), field: "routes[0].upstream", mentions: ["A16_TOKEN", "not set"])
    }

    /// retest16 L5: a route whose `upstream` gives its page parameter (`?page=1`, as an older `probe` printed it) passed
    /// check-config, and every client's `?page=2` was then a 400 blaming the client.
    @Test("an upstream that gives its own page or offset parameter loads with a warning naming the route (check-config fails on it)")
    func upstreamGivingItsPositionParameterIsWarned() throws {
        for (pagination, query, parameter) in [
            (#"{ "scheme": "page-number" }"#, "?page=1&per_page=3", "page"), (#"{ "scheme": "offset" }"#, "?offset=0&limit=5", "offset"),
        ] {
            let route = ConfigFixture.route(name: #""pr""#, upstream: "\"http://example.com/items\(query)\"", pagination: pagination)
            let config = try ConfigFixture.parse(ConfigFixture.document(routes: [route]))
            #expect(config.warnings.count == 1)
            let warning = try #require(config.warnings.first)
            #expect(warning.field == "routes[0].upstream")
            #expect(warning.problem.contains("route \"pr\" gives \(parameter)"), "\(warning.problem)")
        }
        let sizeOnly = ConfigFixture.route(upstream: #""http://example.com/items?per_page=3""#, pagination: #"{ "scheme": "page-number" }"#)
        #expect(try ConfigFixture.parse(ConfigFixture.document(routes: [sizeOnly])).warnings.isEmpty)
    }

    /// retest17 N2: the warning said a window was refused on such a route; windows are answered, counted from where the
    /// route starts, and only a client's own page (or offset) is refused. A route that starts elsewhere (`?page=3`, a
    /// first page of 0 given as 1) or a cursor route naming its first cursor (Synapse's `from=0`, the real-server
    /// harness) means it: no warning, which `check-config` would fail on.
    @Test("the warning for an upstream giving its own first position says windows are answered; a start elsewhere or a first cursor is no warning")
    func upstreamPositionWarningSaysWindowsAreAnswered() throws {
        for (pagination, query, advice) in [
            (#"{ "scheme": "page-number" }"#, "?page=1", "remove page from upstream"),
            (#"{ "scheme": "offset" }"#, "?offset=0", "remove offset from upstream"),
            (#"{ "scheme": "page-number" }"#, "?page=3", nil),
            (#"{ "scheme": "page-number", "firstPage": 0 }"#, "?page=1", nil),
            (#"{ "scheme": "cursor", "cursorPath": "next_token", "cursorParameter": "from" }"#, "?from=0&limit=100", nil),
        ] {
            let route = ConfigFixture.route(name: #""pr""#, upstream: "\"http://example.com/items\(query)\"", pagination: pagination)
            let warnings = try ConfigFixture.parse(ConfigFixture.document(routes: [route])).warnings
            guard let advice else {
                #expect(warnings.isEmpty, "\(query): \(warnings.map(\.problem))")
                continue
            }
            let warning = try #require(warnings.first)
            #expect(warning.problem.contains("windows (_offset, _limit) are answered"), "\(warning.problem)")
            #expect(!warning.problem.contains("a window) is refused"), "\(warning.problem)")
            #expect(warning.problem.contains(advice), "\(query): \(warning.problem)")
        }
    }
}

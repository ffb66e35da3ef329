@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer
import Testing

/// `headers`, `${VAR}` expansion and `forwardHeaders`.
@Suite struct HeaderConfigTests {
    static let secret = "ghp_SUPERSECRETTOKEN123"

    @Test func headersKeepOrderAndExpandVariables() throws {
        let route = try ConfigFixture.route(
            extra: #""headers": { "Authorization": "Bearer ${GITHUB_TOKEN}", "X-Pair": "${A}-${B}$5", "Accept": "*/*" }"#,
            environment: ["GITHUB_TOKEN": Self.secret, "A": "1", "B": ""])
        #expect(route.headers.map(\.name) == ["Authorization", "X-Pair", "Accept"])
        #expect(route.headers[0].value == "Bearer " + Self.secret)
        #expect(route.headers[1].value == "1-$5")
        #expect(route.headers[2].value == "*/*")
    }

    @Test func unsetVariableNamesVariableAndFieldButNotTheValue() {
        let error = ConfigFixture.expectRouteError(
            extra: #""headers": { "Authorization": "Bearer \#(Self.secret) ${GITHUB_TOKEN}" }"#,
            field: "headers.Authorization", mentions: ["GITHUB_TOKEN", "not set"], environment: ["OTHER": "x"])
        #expect(error?.description.contains(Self.secret) == false)
        #expect(error?.description.contains("Bearer") == false)
    }

    @Test func malformedPlaceholders() {
        ConfigFixture.expectRouteError(extra: #""headers": { "X-A": "abc ${TOKEN" }"#, field: "headers.X-A",
                                       mentions: ["closing"])
        let error = ConfigFixture.expectRouteError(extra: #""headers": { "X-A": "abc ${1BAD}" }"#, field: "headers.X-A",
                                                   mentions: ["environment variable name"])
        #expect(error?.description.contains("abc") == false)
    }

    @Test func expandedValueMustNotSplitTheHeader() {
        let error = ConfigFixture.expectRouteError(extra: #""headers": { "X-A": "${V}" }"#, field: "headers.X-A",
                                                   mentions: ["line break"], environment: ["V": "ok\r\nX-Evil: \(Self.secret)"])
        #expect(error?.description.contains(Self.secret) == false)
    }

    @Test("a route's header lines are bounded as a request's are (attack13: a 50 MB value passed check-config); the error says no value")
    func headerLinesAreBounded() throws {
        let limit = RouteConfigParser.maxHeaderBytes
        let fits = String(repeating: "v", count: limit - "X-Big: ".count)
        #expect(try ConfigFixture.route(extra: #""headers": { "X-Big": "\#(fits)" }"#).headers[0].value.utf8.count == fits.utf8.count)
        let error = ConfigFixture.expectRouteError(
            extra: #""headers": { "X-A": "abc", "X-Big": "\#(fits)" }"#, field: "headers.X-Big", mentions: ["at most \(limit)"])
        #expect(error?.description.contains("vvvv") == false)
        ConfigFixture.expectRouteError(
            extra: #""headers": { "X-Huge": "${V}" }"#, field: "headers.X-Huge", mentions: ["bytes"],
            environment: ["V": String(repeating: "x", count: 50 << 20)])
    }

    @Test func headerValueMustBeAString() {
        let error = ConfigFixture.expectRouteError(extra: #""headers": { "X-Num": 12345 }"#, field: "headers.X-Num",
                                                   mentions: ["expected a string", "an integer"])
        #expect(error?.description.contains("12345") == false)
        ConfigFixture.expectRouteError(extra: #""headers": ["a"]"#, field: "headers", mentions: ["expected an object"])
    }

    @Test(arguments: ["Connection", "keep-alive", "Proxy-Connection", "Transfer-Encoding", "TE", "Trailer",
                      "Upgrade", "host", "Content-Length"])
    func hopByHopHeadersAreRejected(name: String) {
        ConfigFixture.expectRouteError(extra: #""headers": { "\#(name)": "v" }"#, field: "headers.\(name)",
                                       mentions: ["hop-by-hop"])
        ConfigFixture.expectRouteError(extra: #""forwardHeaders": ["\#(name)"]"#, field: "forwardHeaders[0]",
                                       mentions: ["hop-by-hop"])
    }

    /// attack12 L2: a forwarded `If-None-Match` turned a client's conditional request into a 502 (a page's 304).
    @Test(arguments: [
        ("If-None-Match", "conditional"), ("if-modified-since", "conditional"), ("If-Match", "conditional"),
        ("If-Unmodified-Since", "conditional"), ("If-Range", "conditional"), ("Range", "whole"),
        ("Accept-Encoding", "identity"), ("Expect", "417"), ("Proxy-Authorization", "not for the upstream"),
    ])
    func fieldsTheProxyAnswersItselfAreNotForwarded(name: String, why: String) throws {
        ConfigFixture.expectRouteError(extra: #""forwardHeaders": ["Authorization", "\#(name)"]"#,
                                       field: "forwardHeaders[1]", mentions: ["\"\(name)\"", why, "cannot be forwarded"])
        // The route's own headers are the operator's choice, but for those that would break every walk (retest12).
        if ConfigHeaderRules.breaksEveryWalk.contains(name.lowercased()) {
            ConfigFixture.expectRouteError(extra: #""headers": { "\#(name)": "v" }"#, field: "headers.\(name)",
                                           mentions: ["\"\(name)\"", why, "cannot be set"])
        } else {
            #expect(try ConfigFixture.route(extra: #""headers": { "\#(name)": "v" }"#).headers.map(\.name) == [name])
        }
    }

    @Test(arguments: ["", "Bad Name", "X:Y", "Ümlaut", "a(b)"])
    func invalidHeaderNames(name: String) {
        ConfigFixture.expectRouteError(extra: #""headers": { "\#(name)": "v" }"#, field: "headers.\(name)",
                                       mentions: ["not a valid header name"])
        ConfigFixture.expectRouteError(extra: #""forwardHeaders": ["ok", "\#(name)"]"#, field: "forwardHeaders[1]",
                                       mentions: ["not a valid header name"])
    }

    @Test func caseInsensitiveDuplicateHeaders() {
        ConfigFixture.expectRouteError(extra: #""headers": { "Accept": "a", "accept": "b" }"#, field: "headers.accept",
                                       mentions: ["repeats", "\"Accept\""])
    }

    @Test func forwardHeaders() throws {
        #expect(try ConfigFixture.route(extra: #""forwardHeaders": ["Authorization", "X-Api-Key"]"#).forwardHeaders
            == ["Authorization", "X-Api-Key"])
        ConfigFixture.expectRouteError(extra: #""forwardHeaders": ["Authorization", "x", "AUTHORIZATION"]"#,
                                       field: "forwardHeaders[2]", mentions: ["repeats forwardHeaders[0]"])
        ConfigFixture.expectRouteError(extra: #""forwardHeaders": [true]"#, field: "forwardHeaders[0]",
                                       mentions: ["expected a header name", "boolean true"])
        ConfigFixture.expectRouteError(extra: #""forwardHeaders": "Authorization""#, field: "forwardHeaders",
                                       mentions: ["expected an array"])
    }

    /// attack16 U1: `A16_KEY=` for a `${A16_KEY}` header was accepted silently, and an empty key sent.
    @Test("a variable set but empty loads with a warning naming it and the field (check-config fails on it)")
    func emptyVariableIsWarned() throws {
        let document = ConfigFixture.document(routes: [ConfigFixture.route(extra: #""headers": { "X-Api-Key": "${A16_KEY}" }"#)])
        let config = try ConfigFixture.parse(document, environment: ["A16_KEY": ""])
        #expect(config.warnings.map(\.field) == ["routes[0].headers.X-Api-Key"])
        #expect(config.warnings.first?.problem.contains("A16_KEY is set but empty") == true, "\(config.warnings)")
        #expect(config.routes[0].headers.first?.value == "")
        #expect(try ConfigFixture.parse(document, environment: ["A16_KEY": "k"]).warnings.isEmpty)
    }
}

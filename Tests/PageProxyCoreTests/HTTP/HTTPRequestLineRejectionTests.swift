import PageProxyCore
import Testing

/// RFC 9112 §2–§3: the request line and line endings.
@Suite struct HTTPRequestLineRejectionTests {
    @Test(arguments: [
        "GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n",
        "GET /\r HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n\r\r\n",
    ])
    func refusesBareCarriageReturn(input: String) {
        ParserHarness.expectRejection(input, .bareCarriageReturn)
    }

    @Test(arguments: [
        "GET  / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /  HTTP/1.1\r\nHost: a\r\n\r\n",
        " GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1 \r\nHost: a\r\n\r\n",
        "GET /\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1 extra\r\nHost: a\r\n\r\n",
    ])
    func refusesRequestLineWithoutExactlySingleSpaces(input: String) {
        ParserHarness.expectRejection(input, .malformedRequestLine)
    }

    @Test(arguments: ["G@T", "GE(T", "GET:", "GÉT", "GET\u{7F}", "GET\t/"])
    func refusesMethodThatIsNotAToken(method: String) {
        ParserHarness.expectRejection("\(method) / HTTP/1.1\r\nHost: a\r\n\r\n", .invalidMethod)
    }

    @Test(arguments: ["/a\u{01}b", "/a\u{7F}", "/caf\u{E9}", "/a#frag", "a/b", "ftp://host/a", "http://", "http:///a",
                      "http://user@host/", "//host/?#", "host:443"])
    func refusesInvalidTarget(target: String) {
        ParserHarness.expectRejection("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget)
    }

    @Test func refusesAsteriskFormForOtherMethods() {
        ParserHarness.expectRejection("GET * HTTP/1.1\r\nHost: a\r\n\r\n", .invalidTarget)
    }

    @Test(arguments: ["HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "HTTP/3.0"])
    func refusesUnsupportedVersionWith505(version: String) {
        ParserHarness.expectRejection("GET / \(version)\r\nHost: a\r\n\r\n", .unsupportedVersion)
        #expect(HTTPParseError.unsupportedVersion.status.code == 505)
    }

    @Test(arguments: ["http/1.1", "HTTP/1.10", "HTTP/11", "HTTP/1", "HTTP/1.x", "HTTP/a.1", "HTTPS/1.1", "HTTP/1,1"])
    func refusesMalformedVersionWith400(version: String) {
        ParserHarness.expectRejection("GET / \(version)\r\nHost: a\r\n\r\n", .invalidVersion)
        #expect(HTTPParseError.invalidVersion.status.code == 400)
    }

    @Test func acceptsRequestLineExactlyAtLimit() {
        let limits = HTTPLimits(maxRequestLineBytes: 64)
        let target = "/" + String(repeating: "a", count: 64 - "GET  HTTP/1.1".utf8.count - 1)
        let outcome = ParserHarness.requests("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n", limits: limits)
        #expect(outcome.heads.map(\.target) == [target])
    }

    @Test func refusesRequestLineOnePastLimitWith414() {
        let limits = HTTPLimits(maxRequestLineBytes: 64)
        let target = "/" + String(repeating: "a", count: 64 - "GET  HTTP/1.1".utf8.count)
        ParserHarness.expectRejection("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n", .requestLineTooLong, limits: limits)
        #expect(HTTPParseError.requestLineTooLong.status == .uriTooLong)
    }

    @Test func refusesLongRequestLineBeforeItEnds() throws {
        var parser = HTTPRequestParser(limits: HTTPLimits(maxRequestLineBytes: 64))
        var buffer = Array(("GET /" + String(repeating: "a", count: 59)).utf8)
        #expect(buffer.count == 64)
        guard case .needMoreData = try parser.parse(&buffer) else {
            Issue.record("a line of exactly the limit may still end")
            return
        }
        buffer.append(UInt8(ascii: "\r"))  // a CR may start the CRLF
        guard case .needMoreData = try parser.parse(&buffer) else {
            Issue.record("a trailing CR does not count")
            return
        }
        buffer.append(UInt8(ascii: "a"))
        #expect(throws: HTTPParseError.requestLineTooLong) { try parser.parse(&buffer) }
    }

    @Test func acceptsDefaultLimitRequestLine() {
        let target = "/" + String(repeating: "a", count: 8192 - "GET  HTTP/1.1".utf8.count - 1)
        let accepted = ParserHarness.requests("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n", everySplit: false)
        #expect(accepted.heads.count == 1)
        let refused = ParserHarness.requests("GET \(target)a HTTP/1.1\r\nHost: a\r\n\r\n", everySplit: false)
        #expect(refused.error == .requestLineTooLong)
    }
}

import PageProxyCore
import Testing

/// RFC 9112 §5 and RFC 9110 §5: header field lines, Host, and the 431 limits.
@Suite struct HTTPHeaderRejectionTests {
    @Test(arguments: ["X(A): 1", "X A: 1", "\"X\": 1", ": 1", "X/A: 1", "Ü: 1"])
    func refusesHeaderNameThatIsNotAToken(line: String) {
        ParserHarness.expectRejection("GET / HTTP/1.1\r\nHost: a\r\n\(line)\r\n\r\n", .invalidHeaderName)
    }

    @Test func refusesHeaderLineWithoutColon() {
        ParserHarness.expectRejection("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", .missingColon)
    }

    @Test(arguments: ["Host : a", "Host\t: a", "Content-Length : 5"])
    func refusesWhitespaceBeforeColon(line: String) {
        ParserHarness.expectRejection("GET / HTTP/1.1\r\n\(line)\r\n\r\n", .whitespaceBeforeColon)
    }

    @Test(arguments: ["GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n continued\r\n\r\n",
                      "GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n\tcontinued\r\n\r\n",
                      "GET / HTTP/1.1\r\n Host: a\r\n\r\n"])
    func refusesObsoleteLineFolding(input: String) {
        ParserHarness.expectRejection(input, .obsoleteLineFolding)
    }

    @Test(arguments: ["a\u{00}b", "a\u{01}", "\u{1F}", "a\u{7F}b", "x\u{0B}y"])
    func refusesControlBytesInHeaderValue(value: String) {
        ParserHarness.expectRejection("GET / HTTP/1.1\r\nHost: a\r\nX-A: \(value)\r\n\r\n", .invalidHeaderValue)
    }

    @Test func acceptsTabAndObsTextInHeaderValue() throws {
        let head = try #require(ParserHarness.requests("GET / HTTP/1.1\r\nHost: a\r\nX-A: a\tb é\r\n\r\n").heads.first)
        #expect(head.headers["X-A"] == "a\tb é")
    }

    @Test func refusesHTTP11RequestWithoutHost() {
        ParserHarness.expectRejection("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", .missingHost)
    }

    @Test(arguments: ["HTTP/1.1", "HTTP/1.0"])
    func refusesMultipleHosts(version: String) {
        ParserHarness.expectRejection("GET / \(version)\r\nHost: a\r\nhost: a\r\n\r\n", .multipleHosts)
    }

    @Test(arguments: ["a b", "a/b", "a@b", "a\"b"])
    func refusesInvalidHostValue(host: String) {
        ParserHarness.expectRejection("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n", .invalidHost)
    }

    /// "Host: a" is 7 bytes; fill the rest of a 100-byte header section with one field.
    private func headers(totalBytes: Int) -> String {
        let filler = "X-Fill: " + String(repeating: "f", count: totalBytes - 7 - 8)
        return "GET / HTTP/1.1\r\nHost: a\r\n\(filler)\r\n\r\n"
    }

    @Test func acceptsHeaderSectionExactlyAtLimit() {
        let outcome = ParserHarness.requests(headers(totalBytes: 100), limits: HTTPLimits(maxHeaderBytes: 100))
        #expect(outcome.heads.count == 1 && outcome.error == nil)
    }

    @Test func refusesHeaderSectionOnePastLimitWith431() {
        ParserHarness.expectRejection(headers(totalBytes: 101), .headersTooLarge, limits: HTTPLimits(maxHeaderBytes: 100))
        #expect(HTTPParseError.headersTooLarge.status == .requestHeaderFieldsTooLarge)
    }

    @Test func refusesOversizedHeadersBeforeSectionEnds() throws {
        var parser = HTTPRequestParser(limits: HTTPLimits(maxHeaderBytes: 100))
        var buffer = Array(("GET / HTTP/1.1\r\nHost: a\r\nX-Fill: " + String(repeating: "f", count: 85)).utf8)
        guard case .needMoreData = try parser.parse(&buffer) else {
            Issue.record("exactly at the limit is fine")
            return
        }
        buffer.append(UInt8(ascii: "f"))
        #expect(throws: HTTPParseError.headersTooLarge) { try parser.parse(&buffer) }
    }

    private func request(fieldCount: Int) -> String {
        "GET / HTTP/1.1\r\nHost: a\r\n" + (1..<fieldCount).map { "X-\($0): v\r\n" }.joined() + "\r\n"
    }

    @Test func acceptsHeaderCountExactlyAtLimit() {
        let outcome = ParserHarness.requests(request(fieldCount: 10), limits: HTTPLimits(maxHeaderCount: 10))
        #expect(outcome.heads.first?.headers.count == 10)
    }

    @Test func refusesHeaderCountOnePastLimitWith431() {
        ParserHarness.expectRejection(request(fieldCount: 11), .tooManyHeaders, limits: HTTPLimits(maxHeaderCount: 10))
        #expect(HTTPParseError.tooManyHeaders.status.code == 431)
    }

    @Test func defaultLimitsAllowHundredHeaders() {
        #expect(ParserHarness.requests(request(fieldCount: 100), everySplit: false).heads.count == 1)
        #expect(ParserHarness.requests(request(fieldCount: 101), everySplit: false).error == .tooManyHeaders)
    }
}

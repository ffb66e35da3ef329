import PageProxyCore
import Testing

/// Issue 14: what a client meets first — bytes that are not HTTP, `Expect: 100-continue`, header values that are
/// not UTF-8.
@Suite struct HTTPFirstContactTests {
    /// The first bytes of a TLS 1.2 ClientHello record, as a client that speaks HTTPS to the plain port sends them.
    static let clientHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03]

    @Test("a TLS ClientHello is refused from its first byte, without waiting for a line end")
    func refusesTLSClientHelloAtOnce() {
        var parser = HTTPRequestParser()
        var buffer = Array(Self.clientHello.prefix(1))
        #expect(throws: HTTPParseError.invalidMethod) { try parser.parse(&buffer) }
        #expect(ParserHarness.requests(Self.clientHello).error == .invalidMethod)
    }

    @Test("bytes that cannot begin a method are refused before the line ends", arguments: ["\u{0}", "{\"a\":1}", "@GET", "GET\u{1}"])
    func refusesNonMethodBytesBeforeTheLineEnds(start: String) {
        var parser = HTTPRequestParser()
        var buffer = Array(start.utf8)
        #expect(throws: HTTPParseError.invalidMethod) { try parser.parse(&buffer) }
    }

    @Test("a request line still arriving is waited for while it may be one", arguments: ["G", "GET", "GET ", "\r", "\r\nGE", "M-SEARCH"])
    func waitsWhileTheLineMayBeARequest(start: String) throws {
        var parser = HTTPRequestParser()
        var buffer = Array(start.utf8)
        guard case .needMoreData = try parser.parse(&buffer) else {
            Issue.record("expected to wait for more")
            return
        }
    }

    @Test("Expect: 100-continue hands out the head before the body, which is left unread", arguments: [
        "Content-Length: 5\r\n", "Transfer-Encoding: chunked\r\n",
    ])
    func expectContinueAnswersBeforeTheBody(framing: String) {
        let input = "POST /a HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\(framing)\r\nhello"
        let outcome = ParserHarness.requests(input)
        #expect(outcome.error == nil)
        #expect(outcome.heads.count == 1)
        #expect(outcome.heads.first?.hasUnreadBody == true)
        #expect(outcome.leftover == Array("hello".utf8))
    }

    @Test("without a body, or from an HTTP/1.0 client, Expect changes nothing")
    func expectWithoutBodyOrFromHTTP10IsAnOrdinaryRequest() {
        let noBody = ParserHarness.requests("POST /a HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n")
        #expect(noBody.heads.count == 1 && noBody.heads.first?.hasUnreadBody == false)
        let http10 = ParserHarness.requests("POST /a HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\nhello")
        #expect(http10.heads.count == 1 && http10.heads.first?.hasUnreadBody == false && http10.leftover.isEmpty)
    }

    @Test("a header value that is not UTF-8 is named, so that it is never forwarded altered")
    func nonUTF8ValuesAreNamed() {
        let input = Array("GET / HTTP/1.1\r\nHost: a\r\nAuthorization: Basic ".utf8) + [0xFF, 0xC0, 0xAE] + Array("\r\nX-Ok: caf\u{E9}\r\n\r\n".utf8)
        let outcome = ParserHarness.requests(input)
        #expect(outcome.heads.first?.fieldsNotUTF8 == ["Authorization"])
    }
}

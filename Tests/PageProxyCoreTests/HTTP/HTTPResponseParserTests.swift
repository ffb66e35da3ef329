import PageProxyCore
import Testing

@Suite struct HTTPResponseParserTests {
    @Test func parsesContentLengthBody() throws {
        let outcome = ParserHarness.responses("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello")
        let response = try #require(outcome.responses.first)
        #expect(outcome.responses.count == 1 && outcome.error == nil && outcome.leftover.isEmpty)
        #expect(response.head.status == .ok)
        #expect(response.head.version == .http1_1)
        #expect(response.head.headers["content-type"] == "text/plain")
        #expect(response.body == Array("hello".utf8))
        #expect(outcome.isReusable)
    }

    @Test func parsesChunkedBodyWithExtensionsAndTrailers() throws {
        let outcome = ParserHarness.responses(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4;name=\"a;b,c\"\r\nWiki\r\n5 ; x=y\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0;end\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n")
        let response = try #require(outcome.responses.first)
        #expect(String(decoding: response.body, as: UTF8.self) == "Wikipedia in\r\n\r\nchunks.")
        #expect(!response.head.headers.contains("X-Checksum"))
        #expect(outcome.isReusable && outcome.leftover.isEmpty)
    }

    @Test func headResponseHasNoBody() throws {
        let outcome = ParserHarness.responses(
            "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", method: .head)
        #expect(outcome.responses.count == 2)
        #expect(outcome.responses.allSatisfy { $0.body.isEmpty })
        #expect(outcome.isReusable)
    }

    @Test(arguments: [204, 304])
    func noContentAndNotModifiedHaveNoBody(code: Int) throws {
        let outcome = ParserHarness.responses("HTTP/1.1 \(code) X\r\nContent-Length: 10\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        #expect(outcome.responses.map(\.head.status.code) == [code, 200])
        #expect(outcome.responses.map(\.body) == [[], Array("ok".utf8)])
    }

    @Test func skipsContinueInterimResponse() throws {
        let outcome = ParserHarness.responses(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
        let response = try #require(outcome.responses.first)
        #expect(outcome.responses.count == 1)
        #expect(response.head.status == HTTPStatus(code: 201))
        #expect(!response.head.headers.contains("Link"))
        #expect(response.body == Array("ok".utf8))
    }

    @Test func completesCloseDelimitedBodyOnFinish() throws {
        let outcome = ParserHarness.responses("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[1,2,3]", finish: true)
        let response = try #require(outcome.responses.first)
        #expect(response.body == Array("[1,2,3]".utf8))
        #expect(!outcome.isReusable)
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n",
        "HTTP/1.1 200 OK\r\nContent-Le",
        "HTTP/1.1 100 Continue\r\n\r\n",
    ])
    func truncatedResponseThrowsOnFinish(input: String) {
        let outcome = ParserHarness.responses(input, finish: true)
        #expect(outcome.error == .truncated)
    }

    @Test func finishWithNothingReadNeedsMoreData() throws {
        var parser = HTTPResponseParser(maxBodyBytes: 100)
        guard case .needMoreData = try parser.finish() else {
            Issue.record("nothing was read")
            return
        }
        var buffer = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
        guard case .response = try parser.parse(&buffer, method: .get), case .needMoreData = try parser.finish() else {
            Issue.record("a complete response leaves nothing to finish")
            return
        }
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n5\r\nabcde\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\n\r\n0123456789a",
    ])
    func bodyOverLimitThrows(input: String) {
        #expect(ParserHarness.responses(input, maxBodyBytes: 10, finish: true).error == .bodyTooLarge(limit: 10))
    }

    @Test func bodyExactlyAtLimitIsAccepted() {
        let outcome = ParserHarness.responses("HTTP/1.1 200 OK\r\n\r\n0123456789", maxBodyBytes: 10, finish: true)
        #expect(outcome.responses.first?.body.count == 10)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", true),
        ("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", false),
        ("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n", true),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", true),
        ("HTTP/1.1 200 OK\r\n\r\nclose-delimited", false),
    ])
    func detectsKeepAlive(input: String, reusable: Bool) {
        let outcome = ParserHarness.responses(input, finish: true)
        #expect(outcome.responses.count == 1)
        #expect(outcome.isReusable == reusable)
    }

    @Test func refusesConflictingFraming() {
        let outcome = ParserHarness.responses("HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(outcome.error == .conflictingFraming)
    }

    @Test(arguments: ["gzip", "gzip, chunked", "chunked, gzip"])
    func refusesUnsupportedTransferCoding(value: String) {
        #expect(ParserHarness.responses("HTTP/1.1 200 OK\r\nTransfer-Encoding: \(value)\r\n\r\n").error == .unsupportedTransferCoding)
    }

    @Test(arguments: ["3, 4", "-1", "abc", ""])
    func refusesInvalidContentLength(value: String) {
        #expect(ParserHarness.responses("HTTP/1.1 200 OK\r\nContent-Length: \(value)\r\n\r\nabc").error == .invalidContentLength)
    }

    @Test func acceptsRepeatedIdenticalContentLength() {
        let outcome = ParserHarness.responses("HTTP/1.1 200 OK\r\nContent-Length: 3, 3\r\nContent-Length: 3\r\n\r\nabc")
        #expect(outcome.responses.first?.body == Array("abc".utf8))
    }

    @Test(arguments: ["HTTP/2 200 OK", "HTTP/1.1 20 OK", "HTTP/1.1 200OK", "HTTP/1.1  200 OK", "http/1.1 200 OK", "SSH-2.0-OpenSSH",
                      "HTTP/1.1 099 Low"])
    func refusesMalformedStatusLine(line: String) {
        #expect(ParserHarness.responses("\(line)\r\nContent-Length: 0\r\n\r\n").error == .malformedStatusLine)
    }

    @Test func acceptsStatusLineWithoutReason() throws {
        let response = try #require(ParserHarness.responses("HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n").responses.first)
        #expect(response.head.status.code == 404 && response.head.status.reasonPhrase == "")
    }

    @Test(arguments: ["Bad Name: x", "NoColon", "X : y", "X: a\u{00}b"])
    func refusesInvalidHeader(line: String) {
        #expect(ParserHarness.responses("HTTP/1.1 200 OK\r\n\(line)\r\nContent-Length: 0\r\n\r\n").error == .invalidHeader)
    }

    @Test func unfoldsObsoleteLineFolding() throws {
        let response = try #require(
            ParserHarness.responses("HTTP/1.1 200 OK\r\nX-A: one\r\n  two\r\nContent-Length: 0\r\n\r\n").responses.first)
        #expect(response.head.headers["X-A"] == "one two")
    }

    @Test(arguments: ["5\r\nabcdeX", "x\r\n", "5\r\nabcde\r\n-1\r\n"])
    func refusesInvalidChunk(body: String) {
        #expect(ParserHarness.responses("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body).error == .invalidChunk)
    }

    @Test func refusesOversizedHeaderSection() throws {
        var parser = HTTPResponseParser(maxHeaderBytes: 64, maxBodyBytes: 100)
        var buffer = Array(("HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "x", count: 60)).utf8)
        #expect(throws: HTTPResponseParseError.headersTooLarge) { try parser.parse(&buffer, method: .get) }
    }

    @Test func leavesNextResponseInBuffer() throws {
        var parser = HTTPResponseParser(maxBodyBytes: 100)
        var buffer = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 304 Not Modified\r\n".utf8)
        guard case .response(_, let body) = try parser.parse(&buffer, method: .get) else {
            Issue.record("expected a response")
            return
        }
        #expect(body == Array("ok".utf8))
        #expect(buffer == Array("HTTP/1.1 304 Not Modified\r\n".utf8))
    }

    @Test func errorsDescribeThemselves() {
        #expect(HTTPResponseParseError.bodyTooLarge(limit: 10).description.contains("10"))
        #expect(HTTPResponseParseError.truncated != .invalidChunk)
    }
}

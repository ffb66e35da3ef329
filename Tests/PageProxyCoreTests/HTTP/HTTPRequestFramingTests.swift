import PageProxyCore
import Testing

/// RFC 9112 §6–§7: message body framing, the usual place for request smuggling.
@Suite struct HTTPRequestFramingTests {
    private let head = "POST /a HTTP/1.1\r\nHost: a\r\n"

    @Test(arguments: ["Content-Length: 3\r\nTransfer-Encoding: chunked\r\n", "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n"])
    func refusesContentLengthWithTransferEncoding(fields: String) {
        ParserHarness.expectRejection(head + fields + "\r\n0\r\n\r\n", .conflictingContentLengthAndTransferEncoding)
    }

    @Test(arguments: ["Content-Length: 3\r\nContent-Length: 3\r\n", "Content-Length: 3\r\nContent-Length: 4\r\n",
                      "Content-Length: 3, 3\r\n", "Content-Length: 3,4\r\n"])
    func refusesMultipleContentLengths(fields: String) {
        ParserHarness.expectRejection(head + fields + "\r\nabc", .multipleContentLengths)
    }

    @Test(arguments: ["", "-1", "+3", "3a", "0x3", "3 3", "1e2", "99999999999999999999999", "٣"])
    func refusesInvalidContentLength(value: String) {
        ParserHarness.expectRejection(head + "Content-Length: \(value)\r\n\r\nabc", .invalidContentLength)
    }

    @Test func acceptsContentLengthZeroAndLeadingZeros() {
        let outcome = ParserHarness.requests(head + "Content-Length: 0\r\n\r\n" + head + "Content-Length: 003\r\n\r\nabc")
        #expect(outcome.heads.count == 2 && outcome.leftover.isEmpty)
    }

    @Test func refusesContentLengthOverLimitWith413() {
        let limits = HTTPLimits(maxRequestBodyBytes: 10)
        #expect(ParserHarness.requests(head + "Content-Length: 10\r\n\r\n0123456789", limits: limits).heads.count == 1)
        ParserHarness.expectRejection(head + "Content-Length: 11\r\n\r\n", .bodyTooLarge, limits: limits)
        #expect(HTTPParseError.bodyTooLarge.status == .payloadTooLarge)
    }

    @Test func refusesChunkedBodyOverLimitWith413() {
        let limits = HTTPLimits(maxRequestBodyBytes: 10)
        let accepted = ParserHarness.requests(head + "Transfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n", limits: limits)
        #expect(accepted.heads.count == 1 && accepted.leftover.isEmpty)
        ParserHarness.expectRejection(
            head + "Transfer-Encoding: chunked\r\n\r\n5\r\n01234\r\n6\r\n", .bodyTooLarge, limits: limits)
    }

    @Test(arguments: ["gzip", "chunked, chunked", "identity", "gzip, chunked", "chunked, gzip", "chunked;q=1", "chunke", "",
                      "\"chunked\""])
    func refusesUnsupportedTransferEncodingWith501(value: String) {
        ParserHarness.expectRejection(head + "Transfer-Encoding: \(value)\r\n\r\n0\r\n\r\n", .unsupportedTransferEncoding)
        #expect(HTTPParseError.unsupportedTransferEncoding.status == .notImplemented)
    }

    @Test func refusesTransferEncodingSplitOverTwoFields() {
        ParserHarness.expectRejection(
            head + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .unsupportedTransferEncoding)
    }

    @Test func acceptsChunkedCaseInsensitively() {
        let outcome = ParserHarness.requests(head + "transfer-encoding: CHUNKED\r\n\r\n0\r\n\r\n")
        #expect(outcome.heads.count == 1 && outcome.leftover.isEmpty)
    }

    @Test func refusesTransferEncodingInHTTP10() {
        ParserHarness.expectRejection("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .transferEncodingInHTTP10)
    }

    @Test(arguments: ["-1", "+1", "0x1", " 1", "1 1", "g", "", ";ext", "1\u{0B}", "10000000000000000", "1 ;a\u{01}"])
    func refusesInvalidChunkSize(size: String) {
        ParserHarness.expectRejection(head + "Transfer-Encoding: chunked\r\n\r\n\(size)\r\nx\r\n0\r\n\r\n", .invalidChunkSize)
    }

    @Test func acceptsChunkSizeWithWhitespaceBeforeExtension() {
        let outcome = ParserHarness.requests(head + "Transfer-Encoding: chunked\r\n\r\n1 ;a=b\r\nx\r\n0;last\r\n\r\n")
        #expect(outcome.heads.count == 1 && outcome.leftover.isEmpty)
    }

    @Test(arguments: ["3\r\nabcd\r\n0\r\n\r\n", "3\r\nabc\n0\r\n\r\n", "3\r\nabcXY0\r\n\r\n"])
    func refusesChunkDataNotFollowedByCRLF(body: String) {
        ParserHarness.expectRejection(head + "Transfer-Encoding: chunked\r\n\r\n" + body, .invalidChunkFraming)
    }

    @Test func refusesInvalidTrailerField() {
        ParserHarness.expectRejection(head + "Transfer-Encoding: chunked\r\n\r\n0\r\nX-T : 1\r\n\r\n", .whitespaceBeforeColon)
        ParserHarness.expectRejection(head + "Transfer-Encoding: chunked\r\n\r\n0\r\nX-T: \u{00}\r\n\r\n", .invalidHeaderValue)
    }

    @Test func refusesTooManyTrailerFields() {
        let trailers = (0..<3).map { "X-\($0): v\r\n" }.joined()
        ParserHarness.expectRejection(
            head + "Transfer-Encoding: chunked\r\n\r\n0\r\n\(trailers)\r\n", .tooManyHeaders, limits: HTTPLimits(maxHeaderCount: 2))
    }

    @Test func errorsHaveStatusCodeAndSentence() {
        #expect(HTTPParseError.conflictingContentLengthAndTransferEncoding.status == .badRequest)
        #expect(HTTPParseError.conflictingContentLengthAndTransferEncoding.code == "conflicting_content_length_and_transfer_encoding")
        #expect(HTTPParseError.requestLineTooLong.code == "request_line_too_long")
        #expect(HTTPParseError.invalidChunkSize.status == .badRequest)
        #expect(HTTPParseError.missingHost.description.hasSuffix("."))
    }
}

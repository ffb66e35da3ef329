import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// RFC 9112 conformance and request-smuggling defences, at the socket: each malformed request gets its error status
/// and code, and the connection closes, so that a second request smuggled behind it is never answered.
@Suite struct ConformanceTests {
    /// A second, well-formed request sent behind each malformed one: it must never get an answer.
    static let smuggled = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

    @Test("a malformed or ambiguous request is refused with its status and code, and nothing behind it is answered", arguments: [
        ("both Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "conflicting_content_length_and_transfer_encoding"),
        ("two different Content-Lengths", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", 400, "multiple_content_lengths"),
        ("a malformed Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5x\r\n\r\nhello", 400, "invalid_content_length"),
        ("a signed Content-Length", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +5\r\n\r\nhello", 400, "invalid_content_length"),
        ("an unknown transfer coding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501, "unsupported_transfer_encoding"),
        ("chunked twice", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n", 501, "unsupported_transfer_encoding"),
        ("a bad chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", 400, "invalid_chunk_size"),
        ("whitespace between a header name and its colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400, "whitespace_before_colon"),
        ("an obs-fold continuation line", "GET / HTTP/1.1\r\nHost: x\r\nX-A: b\r\n c\r\n\r\n", 400, "obsolete_line_folding"),
        ("no Host in HTTP/1.1", "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400, "missing_host"),
        ("two Hosts", "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400, "multiple_hosts"),
        ("a NUL in a header value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", 400, "invalid_header_value"),
        ("a control byte in the target", "GET /a\u{1}b HTTP/1.1\r\nHost: x\r\n\r\n", 400, "invalid_target"),
        ("a bare carriage return", "GET / HTTP/1.1\rHost: x\r\n\r\n", 400, "bare_carriage_return"),
        ("HTTP/2.0 on an HTTP/1.1 port", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505, "unsupported_version"),
        ("HTTP/1.2", "GET / HTTP/1.2\r\nHost: x\r\n\r\n", 505, "unsupported_version"),
        ("Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400, "transfer_encoding_in_http_1_0"),
    ])
    func malformedRequestIsRefused(what: String, request: String, status: Int, code: String) async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(request + Self.smuggled)
            let response = try await client.readResponse()
            #expect(response.status == status, "\(what)")
            #expect(response.text.contains("\"code\":\"\(code)\""), "\(what): \(response.text)")
            #expect(response.header("Connection") == "close", "\(what)")
            // Whatever follows the error answer is never read as a request: the connection ends, with nothing more.
            let rest = try await client.readUntilClose()
            #expect(rest.isEmpty, "\(what): the smuggled request was answered")
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("an absolute-form target is answered as its path")
    func absoluteFormTarget() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            let response = try await client.request("http://127.0.0.1/github?mock_total=5")
            #expect(response.status == 200)
            #expect(response.body == MockDataset.mergedJSON(total: 5))
        }
    }
}

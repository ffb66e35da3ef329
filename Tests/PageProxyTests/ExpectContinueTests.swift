import PageProxyCore
import Testing

@testable import PageProxy

/// RFC 9110 §10.1.1: a client that sends `Expect: 100-continue` waits before sending its content; PageProxy
/// answers the final status at once instead of leaving it waiting for a `100 Continue` that never comes.
@Suite struct ExpectContinueTests {
    @Test("a POST that expects 100-continue is answered 405 at once, its content never awaited, and the connection closes")
    func postExpectingContinueIsA405AtOnce() async throws {
        // A header timeout far past the client's own bounded wait: only an answer that does not wait for the content
        // arrives in time.
        try await TestStack.run(configure: { $0.server.headerTimeout = .seconds(3600) }) { stack in
            let client = try await stack.client()
            try await client.send("POST /github HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD")
            #expect(response.header("Connection") == "close")
            #expect(await client.isClosedByServer())
        }
    }

    @Test("a GET with chunked content that expects 100-continue is answered at once, with the items")
    func getExpectingContinueIsAnsweredAtOnce() async throws {
        try await TestStack.run(configure: { $0.server.headerTimeout = .seconds(3600) }) { stack in
            let client = try await stack.client()
            try await client.send(
                "GET /github?mock_total=5 HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == MockDataset.mergedJSON(total: 5))
            #expect(response.header("Connection") == "close")
        }
    }
}

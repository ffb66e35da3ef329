import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// Issue 14: a client's first bytes get their answer at once. The header timeout is an hour here, so an answer that
/// waited for it would fail the test by the client's own 30-second deadline, with no timing assertion.
@Suite struct FirstContactTests {
    private static func slowHeaders(_ config: inout Config) {
        config.server.headerTimeout = .seconds(3600)
    }

    @Test("a TLS ClientHello on the plain port is a 400 and the connection closes at once")
    func tlsClientHelloIsRefusedAtOnce() async throws {
        try await TestStack.run(configure: Self.slowHeaders) { stack in
            let client = try await stack.client()
            try await client.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03])
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"invalid_method\""))
            #expect(response.header("Connection") == "close")
            #expect(await client.isClosedByServer())
        }
    }

    @Test("Expect: 100-continue on a POST gets its 405 at once, without the body, and the connection closes")
    func expectContinuePostIsAnsweredAtOnce() async throws {
        try await TestStack.run(configure: Self.slowHeaders) { stack in
            let client = try await stack.client()
            try await client.send("POST /github HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 1000000\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 405)
            #expect(response.header("Connection") == "close")
            #expect(await client.isClosedByServer())
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("Expect: 100-continue on a GET with a body is answered at once too")
    func expectContinueGetIsAnsweredAtOnce() async throws {
        try await TestStack.run(configure: Self.slowHeaders) { stack in
            let client = try await stack.client()
            try await client.send("GET /github?mock_total=3 HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 200)
            #expect(response.body == MockDataset.mergedJSON(total: 3))
            #expect(response.header("Connection") == "close")
        }
    }
}

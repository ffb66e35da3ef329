import PageProxyCore
import Testing

@testable import PageProxy

/// A client that does not speak HTTP (TLS on the plain port) gets a 400 and a closed connection at once.
@Suite struct NotHTTPTests {
    @Test("a TLS ClientHello on the plain port is a 400 invalid_method at once, then the connection closes")
    func tlsClientHelloIsRefusedAtOnce() async throws {
        // A header timeout far past the client's own bounded wait: only an answer that does not wait for it arrives.
        try await TestStack.run(configure: { $0.server.headerTimeout = .seconds(3600) }) { stack in
            let client = try await stack.client()
            // The first bytes of a TLS 1.2 ClientHello record (handshake, version 3.1, length 0x00c4, ClientHello).
            try await client.send([0x16, 0x03, 0x01, 0x00, 0xC4, 0x01, 0x00, 0x00, 0xC0, 0x03, 0x03])
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"invalid_method\""))
            #expect(response.header("Connection") == "close")
            #expect(await client.isClosedByServer())
        }
    }
}

import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// `https://` upstreams: PageProxy's TLS (OpenSSL, loaded at run time) against the mock served over TLS with a
/// self-signed certificate for 127.0.0.1 (Tests/PageProxyTests/Fixtures/tls).
@Suite struct TLSUpstreamTests {
    /// Runs `body` with a stack whose one route, `secure`, reaches the TLS mock at `host` with `caFile`.
    private func withTLSRoute(
        host: String = "127.0.0.1", caFile: String?, _ body: (TestStack, MockUpstream, TLSMockServer) async throws -> Void
    ) async throws {
        let mock = MockUpstream(options: SchemeRoutes.mockOptions)
        let server = try TLSMockServer(mock: mock)
        defer { server.stop() }
        var route = SchemeRoutes.all[2]
        route.name = "secure"
        route.concurrency = 4
        let port = server.port
        route.configure = { config in
            config.upstream = UpstreamURL(
                text: "https://\(host):\(port)/github/items", scheme: "https", host: host, port: port, path: "/github/items", query: nil)
            config.caFile = caFile
            config.retries = 0
        }
        try await TestStack.run(routes: [route]) { stack in try await body(stack, mock, server) }
    }

    @Test("with its CA file, an https route answers every item, over no more TLS connections than its concurrency")
    func caFileTrustsTheUpstream() async throws {
        try await withTLSRoute(caFile: TLSMockServer.certificate) { stack, mock, server in
            let response = try await stack.get("/secure?mock_total=200")
            #expect(response.status == 200)
            let whole = response.body == MockDataset.mergedJSON(total: 200)
            #expect(whole, "the merged answer equals the ground truth")
            #expect(mock.log.count == 20)
            #expect(server.acceptedConnections <= 4)
            let streamed = try await stack.get("/secure?mock_total=35&_format=ndjson")
            let streamedWhole = streamed.body == MockDataset.ndjson(total: 35)
            #expect(streamedWhole, "the NDJSON answer equals the ground truth")
        }
    }

    @Test("without the CA file, a self-signed upstream is a 502 that says its certificate did not verify")
    func untrustedCertificateIsA502() async throws {
        try await withTLSRoute(caFile: nil) { stack, mock, _ in
            let response = try await stack.get("/secure?mock_total=30")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_tls_failed\""))
            #expect(response.text.contains("certificate did not verify: self-signed certificate"))
            #expect(mock.log.count == 0)
        }
    }

    @Test("a trusted certificate for another name is refused: the host name is verified too")
    func certificateForAnotherNameIsA502() async throws {
        try await withTLSRoute(host: "localhost", caFile: TLSMockServer.certificate) { stack, mock, _ in
            let response = try await stack.get("/secure?mock_total=30")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_tls_failed\""))
            #expect(response.text.contains("hostname mismatch"))
            #expect(mock.log.count == 0)
        }
    }

    @Test("an https route that reaches a server not speaking TLS is a 502 that says the handshake failed")
    func plainServerIsA502() async throws {
        try await TestStack.run(routes: [SchemeRoutes.all[2]], configure: { config in
            let port = config.routes[0].upstream.port
            config.routes[0].upstream = UpstreamURL(
                text: "https://127.0.0.1:\(port)/github/items", scheme: "https", host: "127.0.0.1", port: port, path: "/github/items",
                query: nil)
            config.routes[0].retries = 0
        }) { stack in
            let response = try await stack.get("/github")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_tls_failed\""))
            #expect(response.text.contains("handshake failed"))
        }
    }
}

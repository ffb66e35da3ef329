import PageProxyCore
import Testing

@testable import PageProxy

/// The URLSession transport behind `https://` routes. With no TLS server in the toolchain, the tests speak plain
/// HTTP through it to the mock (the adapter: request, headers, body, limits, deadline, errors) and check that a
/// TLS handshake with a server that does not speak TLS ends in a 502 that says so.
@Suite struct URLSessionTransportTests {
    private func url(_ port: Int, _ target: String, scheme: String = "http") throws -> PageURL {
        try #require(PageURL(string: "\(scheme)://127.0.0.1:\(port)\(target)"))
    }

    @Test("a page arrives whole, with its status and headers, and the forwarded headers reach the upstream")
    func pageArrivesWhole() async throws {
        try await TestStack.run { stack in
            let transport = URLSessionTransport()
            var headers = HTTPHeaders()
            headers.set("Authorization", "Bearer t0ken")
            let response = try await transport.send(
                UpstreamRequest(url: url(stack.mockPort, "/github/items?per_page=10&page=2&mock_total=50"), headers: headers),
                timeout: .seconds(30), maxBodyBytes: 1 << 20)
            #expect(response.status.code == 200)
            #expect(response.body == MockDataset.page(offset: 10, count: 10, total: 50))
            #expect(response.headers["Link"]?.contains("rel=\"last\"") == true)
            let received = try #require(stack.mock.log.requests.last)
            #expect(received.header("authorization") == "Bearer t0ken")
            #expect(received.header("user-agent")?.hasPrefix("PageProxy/") == true)
        }
    }

    @Test("a body past the limit is refused while it downloads")
    func bodyPastTheLimitIsRefused() async throws {
        try await TestStack.run { stack in
            await #expect(throws: UpstreamError.responseTooLarge(origin: "http://127.0.0.1:\(stack.mockPort)", limit: 100)) {
                try await URLSessionTransport().send(
                    UpstreamRequest(url: url(stack.mockPort, "/github/items?per_page=10&page=1&mock_total=50")),
                    timeout: .seconds(30), maxBodyBytes: 100)
            }
        }
    }

    @Test("a page that stalls past the deadline is a timeout")
    func stalledPageTimesOut() async throws {
        try await TestStack.run { stack in
            await #expect(throws: UpstreamError.timedOut(origin: "http://127.0.0.1:\(stack.mockPort)")) {
                try await URLSessionTransport().send(
                    UpstreamRequest(url: url(stack.mockPort, "/github/items?page=1&mock_fault=stall@1")),
                    timeout: .milliseconds(300), maxBodyBytes: 1 << 20)
            }
        }
    }

    @Test("a refused connection is a connect failure")
    func refusedConnectionIsAConnectFailure() async throws {
        let error = await #expect(throws: UpstreamError.self) {
            try await URLSessionTransport().send(UpstreamRequest(url: url(1, "/x")), timeout: .seconds(10), maxBodyBytes: 1 << 20)
        }
        guard case .connectFailed = error else { Issue.record("expected connectFailed, got \(String(describing: error))"); return }
    }

    @Test("an https route whose server does not complete a TLS handshake is a 502 that says TLS failed")
    func failedHandshakeIsA502() async throws {
        var route = SchemeRoutes.all[2]
        route.name = "secure"
        try await TestStack.run(routes: [route], configure: { config in
            // The mock speaks plain HTTP: a TLS client hello gets no TLS answer.
            let port = config.routes[0].upstream.port
            config.routes[0].upstream = UpstreamURL(
                text: "https://127.0.0.1:\(port)/github/items", scheme: "https", host: "127.0.0.1", port: port, path: "/github/items",
                query: nil)
            config.routes[0].retries = 0
        }) { stack in
            let response = try await stack.get("/secure")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_tls_failed\""))
            #expect(response.text.contains("TLS"))
        }
    }
}

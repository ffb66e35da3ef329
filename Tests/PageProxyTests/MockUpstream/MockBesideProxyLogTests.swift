import PageProxyCore
import Testing

@testable import PageProxy

/// The built-in mock started beside the proxy (`mock` in config.json) logs its requests at `debug`: a demo's
/// upstream traffic does not drown the proxy's own request lines at `info`.
@Suite struct MockBesideProxyLogTests {
    /// Starts the app with its built-in mock, logging at `level`; asks the mock for a page directly and the proxy for
    /// its health; returns the log lines once the proxy's request line is in.
    private static func logLines(at level: LogLevel) async throws -> [String] {
        let logs = LogCollector()
        var config = Config.makeForTests(routes: [
            RouteConfig.makeForTests(name: "r", upstream: "http://127.0.0.1:9/", pagination: .pageNumber(.init()))
        ])
        config.mock = MockConfig(address: "127.0.0.1", port: 0, items: 25, pageSize: 10, latency: .zero)
        let app = try PageProxyApp.start(config: config, logger: Logger(level: level) { logs.append($0) })
        let mockPort = try #require(app.mockServer?.port)
        #expect(try await RawHTTPClient.connect(port: mockPort).request("/github/items").status == 200)
        #expect(try await RawHTTPClient.connect(port: app.server.port).request("/healthz").status == 200)
        try await poll("the proxy's request is logged") { logs.lines.contains { $0.contains("\"path\":\"/healthz\"") } }
        await app.stop(grace: .seconds(5))
        return logs.lines
    }

    @Test("at info the mock's requests are not logged; the proxy's are")
    func mockRequestsAreNotLoggedAtInfo() async throws {
        let lines = try await Self.logLines(at: .info)
        #expect(!lines.contains { $0.contains("/github/items") })
        #expect(lines.contains { $0.contains("\"msg\":\"request\"") && $0.contains("\"path\":\"/healthz\"") })
    }

    @Test("at debug the mock's requests are logged as mock requests")
    func mockRequestsAreLoggedAtDebug() async throws {
        let lines = try await Self.logLines(at: .debug)
        let mockLine = try #require(lines.first { $0.contains("\"path\":\"/github/items\"") })
        #expect(mockLine.contains("\"level\":\"debug\""))
        #expect(mockLine.contains("\"msg\":\"mock request\""))
    }
}

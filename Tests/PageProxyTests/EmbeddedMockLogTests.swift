import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Issue 14: the built-in mock's requests are logged at `debug`, so the proxy's `info` log holds the proxy's own.
@Suite struct EmbeddedMockLogTests {
    private static func requestLines(logLevel: LogLevel) async throws -> [String] {
        let logs = LogCollector()
        var config = Config.makeForTests(routes: [
            RouteConfig.makeForTests(name: "r", upstream: "http://127.0.0.1:9/", pagination: .pageNumber(PaginationScheme.PageNumber()))
        ])
        config.mock = MockConfig(address: "127.0.0.1", port: 0, items: 5, pageSize: 5, latency: .zero)
        let app = try PageProxyApp.start(config: config, logger: Logger(level: logLevel) { logs.append($0) })
        let mockPort = try #require(app.mockServer?.port)
        #expect(try await RawHTTPClient.connect(port: mockPort).request("/plain/items").status == 200)
        #expect(try await RawHTTPClient.connect(port: app.server.port).request("/healthz").status == 200)
        try await poll("the proxy's request is logged") { logs.lines.contains { $0.contains("\"path\":\"/healthz\"") } }
        if logLevel == .debug {
            try await poll("the mock's request is logged") { logs.lines.contains { $0.contains("\"path\":\"/plain/items\"") } }
        }
        await app.stop(grace: .seconds(5))
        return logs.lines.filter { $0.contains("\"msg\":\"request\"") }
    }

    @Test func atInfoOnlyTheProxysRequestsAreLogged() async throws {
        let lines = try await Self.requestLines(logLevel: .info)
        #expect(lines.count == 1)
        #expect(lines.allSatisfy { $0.contains("\"path\":\"/healthz\"") && $0.contains("\"level\":\"info\"") })
    }

    @Test func atDebugTheMocksRequestsAreLoggedAtDebug() async throws {
        let lines = try await Self.requestLines(logLevel: .debug)
        #expect(lines.contains { $0.contains("\"path\":\"/plain/items\"") && $0.contains("\"level\":\"debug\"") })
    }
}

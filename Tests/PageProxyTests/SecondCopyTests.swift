import Foundation
import PageProxyCore
import Testing

/// A second copy of the shipped config.json starts beside the first with PAGEPROXY_PORT and PAGEPROXY_MOCK_PORT,
/// and its routes reach its own mock.
@Suite struct SecondCopyTests {
    @Test("the shipped config starts on other ports with PAGEPROXY_PORT and PAGEPROXY_MOCK_PORT, its routes following its mock")
    func shippedConfigMovesWithTheEnvironment() async throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        // At debug, so that the built-in mock's request lines show which mock the route reached.
        let shipped = try String(contentsOf: repository.appendingPathComponent("config.json"), encoding: .utf8)
            .replacingOccurrences(of: #""logLevel": "info""#, with: #""logLevel": "debug""#)
        #expect(shipped.contains(#""logLevel": "debug""#))
        // A port free a moment ago: the kernel does not hand out a just-released ephemeral port again at once.
        let probe = try Socket.makeListening(on: SocketAddress(host: "127.0.0.1", port: 0))
        let mockPort = try #require(probe.localPort())
        probe.close()
        let cache = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-second-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cache) }
        let proxy = try await ProxyProcess(config: shipped, environment: [
            "PAGEPROXY_PORT": "0", "PAGEPROXY_MOCK_PORT": String(mockPort), "PAGEPROXY_CACHE_DIR": cache.path,
        ])
        let mockLine = try await proxy.waitForLogLine { $0.contains("\"msg\":\"mock upstream listening\"") }
        #expect(mockLine.contains("\"port\":\(mockPort)"))
        let response = try await RawHTTPClient.connect(port: proxy.port).request("/demo?mock_total=7")
        #expect(response.status == 200)
        #expect(response.header("PageProxy-Items") == "7")
        // This copy's own mock answered the route's pages.
        _ = try await proxy.waitForLogLine { $0.contains("\"level\":\"debug\"") && $0.contains("\"path\":\"/github/items") }
        proxy.signal(SIGINT)
        _ = try await proxy.waitForExit()
    }
}

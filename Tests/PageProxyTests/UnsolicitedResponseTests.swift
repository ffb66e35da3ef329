import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack17 L2 end to end: an upstream that writes a second, unsolicited response on its kept-alive connections.
@Suite struct UnsolicitedResponseTests {
    @Test("an upstream writing a stray 200 before each later answer on a kept connection never has it merged or cached: every answer is whole, first walk included, and one warning names the origin")
    func strayResponsesNeverBecomePages() async throws {
        let mock = MockUpstream(options: SchemeRoutes.mockOptions)
        let upstream = try StrayResponseUpstream(mock: mock)
        defer { upstream.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-stray-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let port = upstream.port
        var plain = SchemeRoutes.all[0]
        plain.configure = { config in
            config.upstream = UpstreamURL(
                text: "http://127.0.0.1:\(port)/plain/items", scheme: "http", host: "127.0.0.1", port: port, path: "/plain/items", query: nil)
        }
        try await TestStack.run(routes: [plain], configure: { $0.cache = CacheConfig(directory: root, maxBytes: 64 << 20) }) { stack in
            // Three walks that ask the upstream (five, four and three pages), then the first again, from the cache.
            for total in [45, 35, 25, 45] {
                let response = try await stack.get("/plain?mock_total=\(total)")
                #expect(response.status == 200, "total \(total): \(response.text)")
                #expect(!response.text.contains("FORGED"), "total \(total): \(response.text)")
                #expect(response.body == MockDataset.mergedJSON(total: total), "total \(total)")
            }
            // The habit was met (a kept connection was reused at least once), and told once.
            #expect(upstream.strays >= 1)
            let warnings = stack.logs.lines.filter { $0.contains("unsolicited response") }
            #expect(warnings.count == 1, "\(warnings)")
            #expect(warnings.first?.contains("http://127.0.0.1:\(port)") == true, "\(warnings)")
            // review26 M4: an operator sees it in /metrics too, beyond the one warning.
            let metrics = try await stack.get("/metrics").text
            #expect(metrics.contains("\npageproxy_upstream_origins_not_reused 1\n"), "\(metrics)")
        }
    }
}

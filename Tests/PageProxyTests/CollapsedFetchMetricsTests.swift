import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack15 M1: `/metrics` counted every request that joined another's collapsed fetch as an upstream request (40
/// clients, 4 upstream requests: `pageproxy_upstream_pages_total` +160). An upstream page is counted by the request
/// whose try was sent, once: the sum over outcomes is what the upstream received.
@Suite struct CollapsedFetchMetricsTests {
    @Test("concurrent requests that share one upstream try count one upstream page and one latency sample",
          arguments: [true, false])
    func collapsedRequestsCountOneUpstreamPage(cached: Bool) async throws {
        try await run(cached: cached, query: "/plain?mock_total=5", retries: nil) { after, upstreamRequests in
            #expect(upstreamRequests == 1)
            #expect(after.value("pageproxy_upstream_pages_total", ["route": "plain", "outcome": "ok"]) == 1)
            #expect(after.value("pageproxy_upstream_request_duration_seconds_count", ["route": "plain"]) == 1)
        }
    }

    @Test("one failed try shared by every waiter counts one http_5xx, not one a waiter")
    func sharedFailedTryCountsOnce() async throws {
        try await run(cached: true, query: "/plain?mock_total=5&mock_fault=status500@1", retries: 0) { after, upstreamRequests in
            #expect(upstreamRequests == 1)
            #expect(after.value("pageproxy_upstream_pages_total", ["route": "plain", "outcome": "http_5xx"]) == 1)
            #expect(after.value("pageproxy_upstream_request_duration_seconds_count", ["route": "plain"]) == 1)
        }
    }

    /// Sends `clients` identical requests that all wait for the one upstream try, opens it, and hands `check` the
    /// metrics once every answer is in, with the number of requests the upstream received.
    private func run(
        cached: Bool, query: String, retries: Int?, check: (PrometheusTextParser, Int) throws -> Void
    ) async throws {
        var route = SchemeRoutes.all[0]
        route.configure = { config in
            if !cached { config.ttl = .zero }
            if let retries { config.retries = retries }
        }
        let upstream = MockReleaseGate()
        var mockOptions = SchemeRoutes.mockOptions
        mockOptions.releaseGate = upstream
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-collapsed-metrics-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let clients = 8
        try await TestStack.run(routes: [route], mockOptions: mockOptions, configure: { config in
            config.cache = CacheConfig(directory: root, maxBytes: 64 << 20)
        }) { stack in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<clients { group.addTask { _ = try await stack.get(query) } }
                try await poll("every client waits for the one fetch, which reached the upstream") {
                    await stack.app.pages.waiterCount() == clients && upstream.waiting == 1
                }
                upstream.open()
                try await group.waitForAll()
            }
            let metrics = try PrometheusTextParser(try await stack.get("/metrics").text)
            try check(metrics, stack.mock.log.count)
        }
    }
}

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

    /// fix21's leftover: every request that waited for a failed try took a retry of its own budget, and each counted it
    /// in `/metrics` (8 waiters, one retry sent: +8). A retry is counted as it is sent, once.
    @Test("a retry shared by every waiter counts one retry, as the upstream received it", arguments: [true, false])
    func sharedRetryCountsOnce(cached: Bool) async throws {
        try await run(cached: cached, query: "/plain?mock_total=5&mock_fault=transient500@1", retries: 1) { after, upstreamRequests in
            // Waiters that retry after the retry's answer was stored find it there (cached); uncached, they may each
            // send one: whatever the upstream received, each try past the first is one retry.
            #expect(upstreamRequests >= 2)
            #expect(after.value("pageproxy_upstream_retries_total", ["route": "plain"]) == Double(upstreamRequests - 1))
            #expect(after.value("pageproxy_upstream_pages_total", ["route": "plain", "outcome": "http_5xx"]) == 1)
            #expect(after.value("pageproxy_upstream_pages_total", ["route": "plain", "outcome": "ok"]) == Double(upstreamRequests - 1))
        }
    }

    /// fix21's leftover: the request that sent a try left (its client went) while others still waited for it: it counted
    /// `cancelled`, and the try's real answer, which the others were served, was counted by nobody.
    @Test("a shared try whose sender left is counted once, with the answer it got")
    func aTryWhoseSenderLeftCountsItsAnswer() async throws {
        let upstream = MockReleaseGate()
        var mockOptions = SchemeRoutes.mockOptions
        mockOptions.releaseGate = upstream
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-left-sender-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(routes: [SchemeRoutes.all[0]], mockOptions: mockOptions, configure: { config in
            config.cache = CacheConfig(directory: root, maxBytes: 64 << 20)
        }) { stack in
            let query = "/plain?mock_total=5"
            let sender = try await stack.client()
            try await sender.send(RawHTTPClient.requestText(query))
            try await poll("the first request's try reached the upstream") { upstream.waiting == 1 }
            async let joined = stack.get(query)
            try await poll("a second request waits for the same try") { await stack.app.pages.waiterCount() == 2 }
            sender.socket.close()
            try await poll("the sender has stopped waiting") { await stack.app.pages.waiterCount() == 1 }
            upstream.open()
            #expect(try await joined.status == 200)
            #expect(stack.mock.log.count == 1)
            let metrics = try PrometheusTextParser(try await stack.get("/metrics").text)
            #expect(metrics.value("pageproxy_upstream_pages_total", ["route": "plain", "outcome": "ok"]) == 1)
            #expect(metrics.value("pageproxy_upstream_pages_total", ["route": "plain", "outcome": "cancelled"]) == nil)
            #expect(metrics.value("pageproxy_upstream_request_duration_seconds_count", ["route": "plain"]) == 1)
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

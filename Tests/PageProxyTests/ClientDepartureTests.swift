import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A client that leaves cancels its walk; that is its own outcome, never an upstream failure.
@Suite struct ClientDepartureTests {
    @Test(
        "a client that leaves while a page stalls is counted as cancelled, not as an upstream error, and its log line names no error",
        arguments: ["", "&_format=ndjson"])
    func clientThatLeavesIsNoUpstreamFailure(format: String) async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/slack?mock_total=100&mock_fault=stall@2" + format))
            try await poll("page 2 is requested") { stack.mock.log.count == 2 }
            client.socket.close()
            try await poll("the proxy lets the connection go", limit: .seconds(10)) { stack.app.server.openConnections == 0 }
            // Counted where the try ends, once its fetch has stopped (the last request waiting for it left).
            var metrics = try PrometheusTextParser(try await stack.get("/metrics").text)
            try await poll("the cancelled try is counted") {
                metrics = (try? PrometheusTextParser(try await stack.get("/metrics").text)) ?? metrics
                return metrics.value("pageproxy_upstream_pages_total", ["route": "slack", "outcome": "cancelled"]) != nil
            }
            #expect(metrics.value("pageproxy_upstream_pages_total", ["route": "slack", "outcome": "error"]) == nil)
            #expect(metrics.value("pageproxy_upstream_pages_total", ["route": "slack", "outcome": "cancelled"]) == 1)
            #expect(metrics.value("pageproxy_upstream_pages_total", ["route": "slack", "outcome": "ok"]) == 1)
            let line = stack.logs.lines.first { $0.contains("\"msg\":\"request\"") && $0.contains("mock_fault=stall") }
            #expect(line != nil)
            #expect(line?.contains("\"error\"") == false)
        }
    }
}

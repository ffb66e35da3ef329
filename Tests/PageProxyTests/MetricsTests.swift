import PageProxyCore
import Testing

@testable import PageProxy

/// `/metrics` is valid exposition format and its counters move with traffic.
@Suite struct MetricsTests {
    private func scrape(_ stack: TestStack) async throws -> PrometheusTextParser {
        let response = try await stack.get("/metrics")
        #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        return try PrometheusTextParser(response.text)
    }

    @Test func metricsParseAndMoveWithTraffic() async throws {
        try await TestStack.run { stack in
            let before = try await scrape(stack)
            #expect(before.types["pageproxy_requests_total"] == "counter")
            #expect(before.types["pageproxy_upstream_request_duration_seconds"] == "histogram")
            #expect(before.value("pageproxy_open_connections") != nil)

            #expect(try await stack.get("/github?mock_total=25").status == 200)
            #expect(try await stack.get("/github?mock_total=25").status == 200)
            #expect(try await stack.get("/slack?mock_total=30&mock_fault=status500@2").status == 502)
            #expect(try await stack.get("/nope").status == 404)

            let after = try await scrape(stack)
            #expect(after.value("pageproxy_requests_total", ["route": "github", "status": "200"]) == 2)
            #expect(after.value("pageproxy_requests_total", ["route": "slack", "status": "502"]) == 1)
            #expect(after.value("pageproxy_requests_total", ["route": "", "status": "404"]) == 1)
            #expect(after.value("pageproxy_upstream_pages_total", ["route": "github", "outcome": "ok"]) == 6)
            #expect(after.value("pageproxy_upstream_pages_total", ["route": "slack", "outcome": "http_5xx"]) == 1)
            #expect(after.value("pageproxy_upstream_retries_total", ["route": "slack"]) == 3)
            #expect(after.value("pageproxy_upstream_request_duration_seconds_count", ["route": "github"]) == 6)
            #expect(after.value("pageproxy_response_duration_seconds_count", ["route": "github"]) == 2)
            #expect((after.value("pageproxy_response_bytes_total") ?? 0) > (before.value("pageproxy_response_bytes_total") ?? 0))
            // The scrape itself is in flight while it is answered.
            #expect(after.value("pageproxy_requests_in_flight") == 1)
        }
    }

    @Test func parserRejectsBrokenExposition() {
        #expect(throws: PrometheusTextParser.Invalid.self) { try PrometheusTextParser("no_type 1\n") }
        #expect(throws: PrometheusTextParser.Invalid.self) { try PrometheusTextParser("# TYPE a counter\na{x=\"1} 1\n") }
        #expect(throws: PrometheusTextParser.Invalid.self) { try PrometheusTextParser("# TYPE a counter\na one\n") }
        #expect(throws: PrometheusTextParser.Invalid.self) {
            try PrometheusTextParser("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n")
        }
    }
}

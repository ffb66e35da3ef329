import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `/metrics` is valid exposition format and its counters move with traffic.
@Suite struct MetricsTests {
    private func scrape(_ stack: TestStack) async throws -> PrometheusTextParser {
        let response = try await stack.get("/metrics")
        #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        return try PrometheusTextParser(response.text)
    }

    @Test("an upstream page's outcome label: a revalidation's 304 is not_modified; one unasked or other 1xx/3xx, not a client error")
    func upstreamOutcomeLabels() {
        #expect(RoutePageFetcher.outcomeLabel(status: 200) == "ok")
        #expect(RoutePageFetcher.outcomeLabel(status: 206) == "ok")
        #expect(RoutePageFetcher.outcomeLabel(status: 304) == "http_other")
        #expect(RoutePageFetcher.outcomeLabel(status: 304, conditional: true) == "not_modified")
        #expect(RoutePageFetcher.outcomeLabel(status: 200, conditional: true) == "ok")
        #expect(RoutePageFetcher.outcomeLabel(status: 101) == "http_other")
        #expect(RoutePageFetcher.outcomeLabel(status: 404) == "http_4xx")
        #expect(RoutePageFetcher.outcomeLabel(status: 503) == "http_5xx")
    }

    @Test("answered requests are listed by route, then by the status's text; each route's duration histogram once")
    func requestSeriesOrderAndCounts() {
        let metrics = Metrics()
        for (route, status) in [("b", 200), ("a", 404), ("b", 200), ("", 404), ("a", 200), ("b", 1000), ("a", 404)] {
            metrics.requestStarted()
            metrics.requestFinished(route: route, status: status, bytes: 10, duration: .milliseconds(20))
        }
        let lines = metrics.exposition().split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("pageproxy_requests_total{") } == [
            #"pageproxy_requests_total{route="",status="404"} 1"#,
            #"pageproxy_requests_total{route="a",status="200"} 1"#,
            #"pageproxy_requests_total{route="a",status="404"} 2"#,
            #"pageproxy_requests_total{route="b",status="1000"} 1"#,
            #"pageproxy_requests_total{route="b",status="200"} 2"#,
        ])
        #expect(lines.filter { $0.hasPrefix("pageproxy_response_duration_seconds_count") } == [
            #"pageproxy_response_duration_seconds_count{route=""} 1"#,
            #"pageproxy_response_duration_seconds_count{route="a"} 3"#,
            #"pageproxy_response_duration_seconds_count{route="b"} 3"#,
        ])
        #expect(lines.contains(#"pageproxy_response_duration_seconds_bucket{route="a",le="0.01"} 0"#))
        #expect(lines.contains(#"pageproxy_response_duration_seconds_bucket{route="a",le="0.025"} 3"#))
        #expect(lines.contains("pageproxy_response_bytes_total 70"))
        #expect(lines.contains("pageproxy_requests_in_flight 0"))
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

            // A request is counted once its answer is written, so a client may read the answer first: scrape until
            // the last of the four is counted and only the scrape is in flight (bounded).
            var after = try await scrape(stack)
            let deadline = ContinuousClock.now + .seconds(10)
            while after.value("pageproxy_requests_total", ["route": "", "status": "404"]) != 1
                || after.value("pageproxy_requests_total", ["route": "slack", "status": "502"]) != 1
                || after.value("pageproxy_requests_in_flight") != 1,
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(10))
                after = try await scrape(stack)
            }
            #expect(after.value("pageproxy_requests_total", ["route": "github", "status": "200"]) == 2)
            #expect(after.value("pageproxy_requests_total", ["route": "slack", "status": "502"]) == 1)
            #expect(after.value("pageproxy_requests_total", ["route": "", "status": "404"]) == 1)
            #expect(after.value("pageproxy_upstream_pages_total", ["route": "github", "outcome": "ok"]) == 6)
            // Each try sent: the first and its three retries.
            #expect(after.value("pageproxy_upstream_pages_total", ["route": "slack", "outcome": "http_5xx"]) == 4)
            #expect(after.value("pageproxy_upstream_retries_total", ["route": "slack"]) == 3)
            #expect(after.value("pageproxy_upstream_request_duration_seconds_count", ["route": "github"]) == 6)
            #expect(after.value("pageproxy_response_duration_seconds_count", ["route": "github"]) == 2)
            #expect((after.value("pageproxy_response_bytes_total") ?? 0) > (before.value("pageproxy_response_bytes_total") ?? 0))
            // The scrape itself is in flight while it is answered.
            #expect(after.value("pageproxy_requests_in_flight") == 1)
        }
    }

    @Test("the page cache's bytes, entries and failed writes by reason are in /metrics (attack13 L2: a cache storing nothing showed only misses)")
    func cacheSizeAndFailedWrites() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-metrics-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(configure: { $0.cache = CacheConfig(directory: root, maxBytes: 64 << 20) }) { stack in
            let before = try await scrape(stack)
            #expect(before.types["pageproxy_cache_bytes"] == "gauge")
            #expect(before.types["pageproxy_cache_write_failures_total"] == "counter")
            #expect(before.value("pageproxy_cache_entries") == 0)
            #expect(before.value("pageproxy_cache_bytes") == 0)
            for reason in DiskStore.WriteFailure.allCases {
                #expect(before.value("pageproxy_cache_write_failures_total", ["reason": reason.rawValue]) == 0, "\(reason)")
            }
            #expect(try await stack.get("/github?mock_total=25").status == 200)
            // Its three pages; the memoized answer is too small for an entry of its own (`AnswerEntryWorth`).
            await AnswerEntries.waitForWrites()
            let after = try await scrape(stack)
            #expect(after.value("pageproxy_cache_entries") == 3)
            #expect(after.value("pageproxy_cache_bytes") == Double(stack.app.pages.store?.totalBytes ?? -1))
            #expect((after.value("pageproxy_cache_bytes") ?? 0) > 0)
        }
        // A page past the cache's bound is not stored, and counted so.
        let store = DiskStore(directory: root + "-small", maxBytes: 64)
        defer { try? FileManager.default.removeItem(atPath: root + "-small") }
        store.write(CacheEntry(status: .ok, headers: HTTPHeaders(), body: Array(repeating: 0x20, count: 100), storedAt: Date(), freshUntil: Date()),
                    for: CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items")!)))
        let metrics = Metrics()
        metrics.observeCacheStore { store }
        let lines = try PrometheusTextParser(metrics.exposition())
        #expect(lines.value("pageproxy_cache_write_failures_total", ["reason": "too_large"]) == 1)
        #expect(lines.value("pageproxy_cache_entries") == 0)
        // review25 L5: the help names every reason a scrape can show.
        let help = metrics.exposition().split(separator: "\n").first { $0.hasPrefix("# HELP pageproxy_cache_write_failures_total ") }
        for reason in DiskStore.WriteFailure.allCases {
            #expect(help.map { Set($0.split { !($0.isLetter || $0 == "_") }).contains(Substring(reason.rawValue)) } == true, "\(reason)")
        }
    }

    @Test("requests the server refuses by itself (a malformed head, a client past the cap) are counted too")
    func refusalsAreCounted() async throws {
        try await TestStack.run(configure: { $0.server.maxConnections = 2 }) { stack in
            let malformed = try await stack.client()
            try await malformed.send("GET / HTTP/1.1\r\nHost : x\r\n\r\n")
            #expect(try await malformed.readResponse().status == 400)
            try await poll("the refused connection is gone") { stack.app.server.openConnections == 0 }
            let first = try await stack.client()
            let second = try await stack.client()
            #expect(try await first.request("/healthz").status == 200)
            #expect(try await second.request("/healthz").status == 200)
            #expect(try await stack.client().readResponse().status == 503)
            // The scrape goes over a connection that is already open.
            let text = try await first.request("/metrics").text
            let after = try PrometheusTextParser(text)
            #expect(after.value("pageproxy_requests_total", ["route": "", "status": "400"]) == 1)
            #expect(after.value("pageproxy_requests_total", ["route": "", "status": "503"]) == 1)
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

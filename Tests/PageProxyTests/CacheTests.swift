import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// DESIGN.md "Page cache on disk", end to end, proved from the mock upstream's own request record.
@Suite struct CacheTests {
    /// A stack whose proxy caches under a fresh directory; `route` adjusts the `github` route (5 pages of 10 below).
    /// Its pages are fresh for a day unless `route` sets a `ttl` (`Route.freshForADay`): a repeat expects hits however
    /// long a loaded machine takes between the two; tests about expiry set their own.
    static func run<T>(
        route: @escaping @Sendable (inout RouteConfig) -> Void = { _ in }, directory: String? = nil, cacheRequired: Bool = true,
        clock: PageProxyClock = .system, memoBytes: Int? = nil, _ body: (TestStack, String) async throws -> T
    ) async throws -> T {
        let root = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-cache-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var github = SchemeRoutes.all[2]
        github.configure = route
        github = github.freshForADay
        var cache = CacheConfig(directory: root, maxBytes: 64 << 20, requiredForReadiness: cacheRequired)
        if let memoBytes { cache.memoBytes = memoBytes }
        return try await TestStack.run(routes: [github], configure: { $0.cache = cache }, clock: clock) {
            try await body($0, root)
        }
    }

    static let target = "/github?mock_total=50"

    @Test func aWarmRepeatMakesZeroUpstreamRequests() async throws {
        try await Self.run { stack, _ in
            let cold = try await stack.get(Self.target)
            #expect(cold.status == 200)
            #expect(cold.header("PageProxy-Cache") == "hits=0 misses=5 revalidated=0 stale=0 bypassed=0")
            #expect(stack.mock.log.count == 5)
            stack.mock.log.reset()
            let warm = try await stack.get(Self.target)
            #expect(warm.status == 200)
            #expect(warm.body == MockDataset.mergedJSON(total: 50))
            #expect(warm.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            #expect(warm.header("ETag") == cold.header("ETag"))
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("a memoized answer's prepared head says what the walk's did, per-request fields fresh; HEAD gets no body")
    func aMemoizedAnswerHasTheWalksHead() async throws {
        try await Self.run { stack, _ in
            let walked = try await stack.get(Self.target)
            let memoized = try await stack.get(Self.target)
            #expect(memoized.body == walked.body)
            for name in ["Content-Type", "Content-Length", "ETag", "PageProxy-Pages", "PageProxy-Items", "Server"] {
                #expect(memoized.header(name) == walked.header(name), "\(name)")
            }
            #expect(memoized.header("Date") != nil)
            #expect(memoized.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            let client = try await stack.client()
            let head = try await client.request(Self.target, method: "HEAD")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == walked.header("Content-Length"))
            // The connection stays usable: the HEAD answer's framing was right.
            let next = try await client.request(Self.target)
            #expect(next.body == walked.body)
        }
    }

    @Test("a memo hit (answered on the socket loop) leaves its connection usable: a walk after it and a hit again, one by one and pipelined")
    func aMemoHitThenAWalkOnOneConnection() async throws {
        // Pages fresh for a day: the last hit comes after a walk of 48 pages and three answers of it, which a loaded
        // machine can stretch past the test default of 60 s.
        try await Self.run(route: { $0.ttl = .seconds(86_400) }) { stack, _ in
            let walked = try await stack.get(Self.target)
            let client = try await stack.client()
            let other = "/github?mock_total=30"
            for (target, total) in [(Self.target, 50), (other, 30), (Self.target, 50), (other, 30)] {
                let response = try await client.request(target)
                #expect(response.status == 200)
                #expect(response.body == MockDataset.mergedJSON(total: total))
            }
            #expect(try await client.request(Self.target).header("ETag") == walked.header("ETag"))
            let fresh = "/github?mock_total=20"
            try await client.send([Self.target, fresh, Self.target, "/healthz"].map { RawHTTPClient.requestText($0) }.joined())
            #expect(try await client.readResponse().body == MockDataset.mergedJSON(total: 50))
            #expect(try await client.readResponse().body == MockDataset.mergedJSON(total: 20))
            let hit = try await client.readResponse()
            #expect(hit.body == MockDataset.mergedJSON(total: 50))
            #expect(hit.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            #expect(try await client.readResponse().status == 200)
            // A memoized answer too large to write from the loop is written from the pool, on the same connection.
            let large = "/github?mock_total=480"
            for _ in 0..<3 {
                let answer = try await client.request(large)
                #expect(answer.body == MockDataset.mergedJSON(total: 480))
                #expect(!PageProxyResponder.answersOnLoop(bodyBytes: answer.body.count))
            }
            #expect(try await client.request(Self.target).header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
        }
    }

    @Test func aStaleRepeatMakesOnlyConditionalRequestsAnswered304() async throws {
        // A TTL of a nanosecond: every entry is stale by the next request, with no waiting.
        try await Self.run(route: { $0.ttl = .nanoseconds(1) }) { stack, _ in
            _ = try await stack.get(Self.target)
            stack.mock.log.reset()
            let repeated = try await stack.get(Self.target)
            #expect(repeated.status == 200)
            #expect(repeated.body == MockDataset.mergedJSON(total: 50))
            #expect(repeated.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=5 stale=0 bypassed=0")
            let requests = stack.mock.log.requests
            #expect(requests.count == 5)
            #expect(requests.allSatisfy { $0.header("If-None-Match")?.hasPrefix("\"") == true })
            // review24 P15: the 304s asked for are `not_modified` in /metrics, not `http_other` (kept for unasked ones).
            let metrics = try PrometheusTextParser(try await stack.get("/metrics").text)
            let pages = { (outcome: String) in metrics.value("pageproxy_upstream_pages_total", ["route": "github", "outcome": outcome]) }
            #expect(pages("ok") == 5)
            #expect(pages("not_modified") == 5)
            #expect(pages("http_other") == nil)
        }
    }

    @Test func entriesAndTheMemoGoStaleWhenTheInjectedClockPassesTheirTTL() async throws {
        let wall = ManualWallClock()
        try await Self.run(route: { $0.ttl = .seconds(60) }, clock: wall.clock) { stack, _ in
            _ = try await stack.get(Self.target)
            wall.advance(seconds: 59)
            let warm = try await stack.get(Self.target)
            #expect(warm.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            // The answer's freshness is measured on the same clock: one second left of the pages' 60.
            #expect(warm.header("Cache-Control") == "max-age=1")
            #expect(stack.mock.log.count == 5)
            stack.mock.log.reset()
            // Past the TTL on the injected clock, with no waiting: neither the memo nor the cache serves the pages.
            wall.advance(seconds: 1)
            let stale = try await stack.get(Self.target)
            #expect(stale.body == MockDataset.mergedJSON(total: 50))
            #expect(stale.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=5 stale=0 bypassed=0")
            #expect(stack.mock.log.count == 5)
            #expect(stale.header("Cache-Control") == "max-age=60")
        }
    }

    @Test("after the wall clock steps back a day, the memo does not answer: every page is revalidated, max-age is the pages' 60 s, not the skew (attack17 M2)")
    func aClockSteppedBackRevalidatesInsteadOfAnsweringFromTheMemo() async throws {
        let wall = ManualWallClock()
        try await Self.run(route: { $0.ttl = .seconds(60) }, clock: wall.clock) { stack, _ in
            _ = try await stack.get(Self.target)
            let warm = try await stack.get(Self.target)
            #expect(warm.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            stack.mock.log.reset()
            wall.advance(seconds: -86_400)
            let after = try await stack.get(Self.target)
            #expect(after.body == MockDataset.mergedJSON(total: 50))
            #expect(after.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=5 stale=0 bypassed=0")
            #expect(after.header("Cache-Control") == "max-age=60")
            #expect(stack.mock.log.count == 5)
        }
    }

    @Test(arguments: [("_fresh=1", [String: String]()), ("", ["Cache-Control": "no-cache"]), ("", ["Pragma": "no-cache"])])
    func clientAskingForFreshRevalidatesAFreshEntry(query: String, headers: [String: String]) async throws {
        try await Self.run { stack, _ in
            _ = try await stack.get(Self.target)
            stack.mock.log.reset()
            let fresh = try await stack.get(Self.target + (query.isEmpty ? "" : "&" + query), headers: headers)
            #expect(fresh.status == 200)
            #expect(fresh.body == MockDataset.mergedJSON(total: 50))
            #expect(fresh.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=5 stale=0 bypassed=0")
            let requests = stack.mock.log.requests
            #expect(requests.count == 5)
            #expect(requests.allSatisfy { $0.header("If-None-Match") != nil && !$0.target.contains("_fresh") })
        }
    }

    @Test func twoAuthorizationValuesNeverShareAnEntry() async throws {
        try await Self.run(route: { $0.forwardHeaders = ["Authorization"] }) { stack, _ in
            _ = try await stack.get(Self.target, headers: ["Authorization": "Bearer alice"])
            #expect(stack.mock.log.count == 5)
            stack.mock.log.reset()
            let bob = try await stack.get(Self.target, headers: ["Authorization": "Bearer bob"])
            #expect(bob.header("PageProxy-Cache") == "hits=0 misses=5 revalidated=0 stale=0 bypassed=0")
            #expect(stack.mock.log.count == 5)
            #expect(stack.mock.log.requests.allSatisfy { $0.header("Authorization") == "Bearer bob" })
            let anonymous = try await stack.get(Self.target)
            #expect(anonymous.header("PageProxy-Cache") == "hits=0 misses=5 revalidated=0 stale=0 bypassed=0")
            stack.mock.log.reset()
            let alice = try await stack.get(Self.target, headers: ["Authorization": "Bearer alice"])
            #expect(alice.header("PageProxy-Cache") == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test func twentyConcurrentIdenticalRequestsMakeOneUpstreamRequestPerPage() async throws {
        try await Self.run { stack, _ in
            // Slow pages, so that the twenty walks overlap.
            let target = Self.target + "&mock_latency_ms=100"
            let bodies = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for _ in 0..<20 {
                    group.addTask { try await stack.get(target).body }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies.count == 20)
            #expect(bodies.allSatisfy { $0 == MockDataset.mergedJSON(total: 50) })
            #expect(stack.mock.log.count == 5)
            #expect(Set(stack.mock.log.requests.map(\.target)).count == 5)
        }
    }

    @Test func staleIfErrorServesTheStalePageAndSaysSo() async throws {
        try await Self.run(route: { route in
            route.ttl = .nanoseconds(1)
            route.staleIfError = true
            route.retries = 0
        }) { stack, _ in
            _ = try await stack.get(Self.target)
            stack.mock.setOutage(true)
            let stale = try await stack.get(Self.target)
            #expect(stale.status == 200)
            #expect(stale.body == MockDataset.mergedJSON(total: 50))
            #expect(stale.header("PageProxy-Stale") == "true")
            #expect(stale.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=0 stale=5 bypassed=0")
            #expect(stack.mock.log.count == 10)
            // Every try the upstream was sent is in /metrics, whatever was then served (fix21's leftover: a page served
            // stale after its try failed counted no upstream page).
            let metrics = try PrometheusTextParser(try await stack.get("/metrics").text)
            let outcomes = ["ok", "not_modified", "http_4xx", "http_5xx", "http_other", "error", "timeout", "cancelled"]
            let counted = outcomes.compactMap { metrics.value("pageproxy_upstream_pages_total", ["route": "github", "outcome": $0]) }
            #expect(counted.reduce(0, +) == 10, "\(counted)")
            #expect(metrics.value("pageproxy_upstream_pages_total", ["route": "github", "outcome": "ok"]) == 5)
        }
    }

    @Test func withoutStaleIfErrorAnOutageIsA502() async throws {
        try await Self.run(route: { route in
            route.ttl = .nanoseconds(1)
            route.retries = 0
        }) { stack, _ in
            _ = try await stack.get(Self.target)
            stack.mock.setOutage(true)
            let failed = try await stack.get(Self.target)
            #expect(failed.status == 502)
            #expect(failed.header("PageProxy-Stale") == nil)
        }
    }

    @Test func ifNoneMatchWithTheAggregateETagGets304WithoutABody() async throws {
        try await Self.run { stack, _ in
            let first = try await stack.get(Self.target)
            let etag = try #require(first.header("ETag"))
            #expect(etag.count == 34 && etag.hasPrefix("\"") && etag.hasSuffix("\""))
            let client = try await stack.client()
            let revalidated = try await client.request(Self.target, headers: ["If-None-Match": etag])
            #expect(revalidated.status == 304)
            #expect(revalidated.body.isEmpty)
            #expect(revalidated.header("ETag") == etag)
            // The connection stays usable after the bodiless 304.
            let other = try await client.request(Self.target, headers: ["If-None-Match": "\"something-else\""])
            #expect(other.status == 200)
            #expect(other.body == first.body)
            // A different answer (fewer items) has a different ETag.
            let fewer = try await stack.get(Self.target + "&_max_items=5", headers: ["If-None-Match": etag])
            #expect(fewer.status == 200)
            #expect(fewer.header("ETag") != etag)
        }
    }

    @Test("NDJSON carries the cache outcome as a trailer to a client that says TE: trailers, and only to it")
    func ndjsonCarriesTheCacheOutcomeAsATrailer() async throws {
        try await Self.run { stack, _ in
            _ = try await stack.get(Self.target)
            let client = try await stack.client()
            try await client.send(
                RawHTTPClient.requestText(Self.target + "&_format=ndjson", headers: ["Connection": "close", "TE": "trailers"]))
            let raw = String(decoding: try await client.readUntilClose(), as: UTF8.self)
            #expect(raw.contains("\r\nTrailer: PageProxy-Cache, PageProxy-Stale, PageProxy-Truncated\r\n"))
            #expect(raw.hasSuffix("\r\n0\r\nPageProxy-Cache: hits=5 misses=0 revalidated=0 stale=0 bypassed=0\r\n\r\n"))
            let plainClient = try await stack.client()
            try await plainClient.send(RawHTTPClient.requestText(Self.target + "&_format=ndjson", headers: ["Connection": "close"]))
            let plain = String(decoding: try await plainClient.readUntilClose(), as: UTF8.self)
            #expect(!plain.contains("Trailer"))
            // Every page at hand: the answer is complete before its first byte, and has a length, not a stream.
            #expect(plain.contains("\r\nContent-Length: ") && !plain.contains("Transfer-Encoding"))
        }
    }

    @Test func outcomesReachMetricsAndTheLogLine() async throws {
        try await Self.run { stack, _ in
            _ = try await stack.get(Self.target)
            _ = try await stack.get(Self.target)
            let metrics = try await stack.get("/metrics").text
            #expect(metrics.contains("pageproxy_cache_pages_total{route=\"github\",outcome=\"miss\"} 5"))
            #expect(metrics.contains("pageproxy_cache_pages_total{route=\"github\",outcome=\"hit\"} 5"))
            try await poll("the request's log line") {
                stack.logs.lines.contains { $0.contains("\"cache\":\"hits=5 misses=0 revalidated=0 stale=0 bypassed=0\"") }
            }
        }
    }

    @Test func entriesOnDiskAreWholeAndOwnerOnly() async throws {
        try await Self.run { stack, root in
            _ = try await stack.get(Self.target)
            // Five pages; the memoized answer is too small for an entry of its own (`AnswerEntryWorth`).
            await AnswerEntries.waitForWrites()
            let store = try #require(stack.app.pages.store)
            #expect(store.entryCount == 5)
            let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".entry") }
            #expect(files.count == 5)
            for file in files {
                let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + file)
                #expect((attributes[.posixPermissions] as? Int) == 0o600)
            }
        }
    }

    @Test("an unusable cache directory: every request is still answered, uncached; /readyz is 503 with the reason")
    func anUnusableCacheDirectoryStillAnswersAndReadyzSaysSo() async throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-blocker-\(UUID().uuidString)").path
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        try await Self.run(directory: blocker + "/cache") { stack, _ in
            let first = try await stack.get(Self.target)
            #expect(first.status == 200)
            #expect(first.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=0 stale=0 bypassed=5")
            let ready = try await stack.get("/readyz")
            #expect(ready.status == 503)
            #expect(ready.text.contains("\"status\":\"not_ready\""))
            #expect(ready.text.contains("\"reason\":\"cache disabled: cache directory \(blocker)/cache is unusable"))
            #expect((try? JSONSerialization.jsonObject(with: Data(ready.body))) != nil)
            #expect(try await stack.get("/healthz").status == 200)
        }
    }

    @Test("with requiredForReadiness false, an unusable cache directory leaves /readyz ready, saying the cache is off")
    func anUnusableCacheDirectoryNotRequiredStaysReady() async throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-blocker-\(UUID().uuidString)").path
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
        defer { try? FileManager.default.removeItem(atPath: blocker) }
        try await Self.run(directory: blocker + "/cache", cacheRequired: false) { stack, _ in
            let first = try await stack.get(Self.target)
            let second = try await stack.get(Self.target)
            #expect(first.status == 200 && second.status == 200)
            #expect(second.body == MockDataset.mergedJSON(total: 50))
            #expect(second.header("PageProxy-Cache") == "hits=0 misses=0 revalidated=0 stale=0 bypassed=5")
            #expect(stack.mock.log.count == 10)
            let ready = try await stack.get("/readyz")
            #expect(ready.status == 200)
            #expect(ready.text.contains("\"status\":\"ready\""))
            #expect(ready.text.contains("\"cache\":\"disabled: cache directory \(blocker)/cache is unusable"))
            #expect(stack.logs.lines.filter { $0.contains("cache disabled; serving uncached") }.count == 1)
        }
    }
}

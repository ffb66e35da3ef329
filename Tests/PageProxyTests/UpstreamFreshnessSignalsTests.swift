import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// attack6 F5, end to end: a page its upstream marks as already stale (`Expires` past or invalid, an invalid
/// `max-age`, `Vary: *`) is revalidated before it is used again, and answers built from it say so to caches in front;
/// a future `Expires` replaces the route's TTL (RFC 9111 §4.1, §4.2.1, §5.3).
@Suite struct UpstreamFreshnessSignalsTests {
    static let revalidatedOnce = "hits=0 misses=0 revalidated=1 stale=0 bypassed=0"

    @Test(
        "a page already stale by its upstream's word is revalidated on the next request, not served for the route's TTL",
        arguments: [
            (nil, ("Expires", "0")), (nil, ("Expires", "Sun, 06 Nov 1994 08:49:37 GMT")), ("max-age=abc", ("X-None", "")),
            ("max-age=-1", ("X-None", "")), ("max-age=60", ("Vary", "*")),
        ] as [(String?, (String, String))])
    func anAlreadyStalePageIsRevalidated(cacheControl: String?, header: (String, String)) async throws {
        let upstream = try ChangingUpstream()
        upstream.set(body: CacheCoherenceTests.v1, cacheControl: cacheControl, more: [header])
        try await CacheCoherenceTests.run(upstream) { stack in
            let first = try await stack.get("/changing")
            #expect(first.text == CacheCoherenceTests.v1)
            #expect(first.header("Cache-Control") == "max-age=0, no-cache")
            upstream.resetLog()
            let second = try await stack.get("/changing")
            #expect(second.text == CacheCoherenceTests.v1)
            #expect(second.header("PageProxy-Cache") == Self.revalidatedOnce)
            #expect(second.header("Cache-Control") == "max-age=0, no-cache")
            #expect(upstream.received.count == 1 && upstream.received.first?.ifNoneMatch != nil)
        }
        await upstream.stop()
    }

    @Test("review9 G3: an upstream whose clock is an hour behind, max-age=600: every request asks it, /metrics counts each page, one log line")
    func anUpstreamClockBehindItsMaxAgeIsCountedAndLoggedOnce() async throws {
        let upstream = try ChangingUpstream()
        upstream.set(body: CacheCoherenceTests.v1, cacheControl: "max-age=600")
        // PageProxy's wall clock an hour ahead of the upstream's `Date` (the upstream's server stamps it with real time).
        let wall = ManualWallClock(Date().addingTimeInterval(3600))
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-date-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestStack.run(routes: [], configure: { config in
            config.routes = [upstream.route]
            config.cache = CacheConfig(directory: root, maxBytes: 1 << 24)
        }, clock: wall.clock) { stack in
            for _ in 1...3 { #expect(try await stack.get("/changing").text == CacheCoherenceTests.v1) }
            #expect(upstream.received.count == 3)
            let metrics = try await stack.get("/metrics").text
            #expect(metrics.contains("pageproxy_cache_pages_stale_by_date_total 3"), "\(metrics)")
            let lines = stack.logs.lines.filter { $0.contains("upstream pages stale on arrival") }
            #expect(lines.count == 1)
            #expect(lines.first?.contains("127.0.0.1:\(upstream.server.port)") == true)
        }
        await upstream.stop()
    }

    @Test("a future Expires without max-age is the page's lifetime, longer than the route's TTL of 60 s")
    func aFutureExpiresReplacesTheRouteTTL() async throws {
        let upstream = try ChangingUpstream()
        let expires = HTTPDate.format(Date().addingTimeInterval(3600))
        upstream.set(body: CacheCoherenceTests.v1, cacheControl: nil, more: [("Expires", expires)])
        try await CacheCoherenceTests.run(upstream) { stack in
            _ = try await stack.get("/changing")
            upstream.resetLog()
            let second = try await stack.get("/changing")
            #expect(second.header("PageProxy-Cache") == CacheCoherenceTests.oneHit)
            let maxAge = second.header("Cache-Control").flatMap { Int($0.dropFirst("max-age=".count)) } ?? 0
            #expect((3000...3600).contains(maxAge), "\(second.header("Cache-Control") ?? "none")")
            #expect(upstream.received.isEmpty)
        }
        await upstream.stop()
    }
}

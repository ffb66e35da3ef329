import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// With `walksOnSocketLoop`, a walk whose pages are all fresh in the cache's memory is answered by `respondFromMemory`,
/// on the socket loop, byte for byte as the pool answers it; any other declines with no trace (issue 13).
@Suite struct WalkFromMemoryTests {
    /// A proxy over the mock with a page cache under a fresh directory, on a clock that moves when told.
    final class CachedProxy: Sendable {
        /// The cache's directory, removed with it.
        let pages = MergedAnswerMemoTests.Store(maxBytes: 64 << 20)
        let wall = ManualWallClock()
        let proxy: InMemoryProxy
        var store: DiskStore { pages.store }

        init(
            routes: [TestStack.Route] = SchemeRoutes.all, spool: MergedSpool = MergedSpool(directories: [NSTemporaryDirectory()]),
            walksOnSocketLoop: Bool = true, answersOnePageOnSocketLoop: Bool = true
        ) {
            proxy = InMemoryProxy(
                routes: routes, cache: pages.store, clock: wall.clock, spool: spool, walksOnSocketLoop: walksOnSocketLoop,
                answersOnePageOnSocketLoop: answersOnePageOnSocketLoop)
        }

        /// Answers `target` on the pool until its pages are kept in memory: stored (a miss), read back once (kept).
        func warm(_ target: String) async throws -> InMemoryProxy.Answer {
            _ = try await proxy.request(target)
            return try await proxy.request(target)
        }
    }

    /// The answer's head fields but those that differ by the moment of the answer.
    static func fields(_ answer: InMemoryProxy.Answer) -> [String] {
        answer.response.fields.filter { !["server-timing", "date"].contains($0.name.lowercased()) }.map { "\($0.name): \($0.value)" }
    }

    static func expectSame(_ fromMemory: InMemoryProxy.Answer, _ fromPool: InMemoryProxy.Answer) {
        #expect(fromMemory.response.status == fromPool.response.status)
        #expect(fromMemory.response.body == fromPool.response.body)
        #expect(Self.fields(fromMemory) == Self.fields(fromPool))
        #expect((fromMemory.response.header("Server-Timing") == nil) == (fromPool.response.header("Server-Timing") == nil))
        #expect(fromMemory.record == fromPool.record)
        #expect(fromMemory.keepsAlive == fromPool.keepsAlive)
    }

    @Test("merged and NDJSON walks of pages in memory are answered from memory, as the pool answers them, and counted once")
    func walksOfPagesInMemoryAreAnsweredFromMemory() async throws {
        let cached = CachedProxy()
        // Every page of the capped walk's window stored first: its first walk stops at 12 items and may cancel the
        // third page's fetch before it is stored (under load it did), and a walk from memory declines a page not
        // at hand.
        _ = try await cached.warm("/github?mock_total=25")
        for target in ["/plain?mock_total=15", "/slack?mock_total=15&_format=ndjson", "/github?mock_total=25&_max_items=12"] {
            _ = try await cached.proxy.request(target)
            let stored = cached.proxy.metrics.exposition()
            let fromPool = try await cached.proxy.request(target)
            #expect(fromPool.response.status == 200)
            #expect(fromPool.record.cache?.hasPrefix("hits=0") == false)
            let before = cached.proxy.metrics.exposition()
            let fromMemory = try #require(try await cached.proxy.requestFromMemory(target), "\(target)")
            Self.expectSame(fromMemory, fromPool)
            // The pages were counted as hits as the pool counts them, once (no more in flight than before).
            let after = cached.proxy.metrics.exposition()
            let hits = "pageproxy_cache_pages_total{route=\"\(target.dropFirst().prefix { $0 != "?" })\",outcome=\"hit\"}"
            #expect(Self.count(hits, in: after) - Self.count(hits, in: before) == Self.count(hits, in: before) - Self.count(hits, in: stored))
            #expect(Self.count("pageproxy_requests_in_flight", in: after) == Self.count("pageproxy_requests_in_flight", in: before))
        }
    }

    @Test("with neither switch a walk is never answered from memory, its pages in memory or not: the pool answers it")
    func walksStayOnThePoolByDefault() async throws {
        let cached = CachedProxy(walksOnSocketLoop: false, answersOnePageOnSocketLoop: false)
        _ = try await cached.warm("/plain?mock_total=15")
        let uses = cached.store.useCount
        #expect(try await cached.proxy.requestFromMemory("/plain?mock_total=15") == nil)
        #expect(cached.store.useCount == uses)
    }

    @Test("a walk that comes to a page not in memory declines with no trace: no metric, no use of the cache; then the pool")
    func aPageNotInMemoryDeclines() async throws {
        let cached = CachedProxy()
        // Stored by the first answer, not read back yet: not in memory.
        let first = try await cached.proxy.request("/plain?mock_total=15")
        #expect(first.record.cache == "hits=0 misses=2 revalidated=0 stale=0 bypassed=0")
        let (metrics, uses) = (cached.proxy.metrics.exposition(), cached.store.useCount)
        #expect(try await cached.proxy.requestFromMemory("/plain?mock_total=15") == nil)
        #expect(cached.proxy.metrics.exposition() == metrics)
        #expect(cached.store.useCount == uses)
        // The pool answers it from the start, every page counted once.
        let fromPool = try await cached.proxy.request("/plain?mock_total=15")
        #expect(fromPool.record.cache == "hits=2 misses=0 revalidated=0 stale=0 bypassed=0")
        // Its pages are in memory now, but the next requests with this plan go to the pool at once, without a look.
        let looked = cached.store.useCount
        #expect(try await cached.proxy.requestFromMemory("/plain?mock_total=15") == nil)
        #expect(cached.store.useCount == looked)
        for _ in 1..<RequestPlan.skipsAfterDecline { #expect(try await cached.proxy.requestFromMemory("/plain?mock_total=15") == nil) }
        let fromMemory = try #require(try await cached.proxy.requestFromMemory("/plain?mock_total=15"))
        Self.expectSame(fromMemory, fromPool)
    }

    @Test("a stale page declines: the pool revalidates it")
    func aStalePageDeclines() async throws {
        let cached = CachedProxy()
        _ = try await cached.warm("/plain?mock_total=7")
        #expect(try await cached.proxy.requestFromMemory("/plain?mock_total=7") != nil)
        cached.wall.advance(seconds: 61)
        let uses = cached.store.useCount
        #expect(try await cached.proxy.requestFromMemory("/plain?mock_total=7") == nil)
        #expect(cached.store.useCount == uses)
        let fromPool = try await cached.proxy.request("/plain?mock_total=7")
        #expect(fromPool.record.cache?.contains("hits=0") == true)
    }

    @Test("a walk past its bytes or pages declines; requests it may not answer are never tried")
    func boundsAndOtherRequestsDecline() async throws {
        let cached = CachedProxy()
        _ = try await cached.warm("/plain?mock_total=15")
        let aggregate = cached.proxy.responder.aggregate
        let plan = try #require(cached.proxy.responder.plans.plan(for: HTTPRequestHead(
            method: .get, target: "/plain?mock_total=15", version: .http1_1, headers: ["Host": "127.0.0.1"])))
        var response: Response? = Response(writer: ResponseWriter(
            sink: MemoryResponseSink(), request: plan.request, keepsAlive: true, writeTimeout: .seconds(5)))
        #expect(await aggregate.walkFromMemory(to: plan.request, plan: plan, began: .now, maxBytes: 100, response: &response) == nil)
        let kept = response != nil
        #expect(kept)
        // More pages than a loop may read: twelve, all in memory.
        let many = CachedProxy(routes: [TestStack.Route(name: "plain", mockPath: "/plain/items", scheme: SchemeRoutes.all[0].scheme)])
        _ = try await many.warm("/plain?mock_total=115")
        #expect(try await many.proxy.requestFromMemory("/plain?mock_total=115") == nil)
        // Past the spool's memory (where an answer that is not held would go to a file): the pool's.
        var small = MergedSpool(directories: [NSTemporaryDirectory()])
        small.memoryBytes = 100
        let spooling = CachedProxy(spool: small)
        _ = try await spooling.warm("/plain?mock_total=7")
        #expect(try await spooling.proxy.requestFromMemory("/plain?mock_total=7") == nil)
        // Explained, `_fresh`, HEAD of NDJSON, trailers: the pool's.
        for (target, headers) in [
            ("/plain?mock_total=7&_explain=1", []), ("/plain?mock_total=7&_fresh=1", []), ("/slack?mock_total=7&_format=ndjson", [("TE", "trailers")]),
        ] as [(String, [(String, String)])] {
            _ = try await cached.proxy.request(target, headers: headers)
            _ = try await cached.proxy.request(target, headers: headers)
            #expect(try await cached.proxy.requestFromMemory(target, headers: headers) == nil, "\(target)")
        }
        _ = try await cached.warm("/slack?mock_total=7&_format=ndjson")
        #expect(try await cached.proxy.requestFromMemory("/slack?mock_total=7&_format=ndjson", method: .head) == nil)
    }

    @Test("a walk from memory that fails answers the pool's error, byte for byte")
    func aFailingWalkAnswersThePoolsError() async throws {
        var route = SchemeRoutes.all[0]
        route.maxPages = 1
        let cached = CachedProxy(routes: [route])
        let fromPool = try await cached.warm("/plain?mock_total=15")
        #expect(fromPool.response.status >= 400)
        let fromMemory = try #require(try await cached.proxy.requestFromMemory("/plain?mock_total=15"))
        Self.expectSame(fromMemory, fromPool)
    }

    /// The value of the metric line `name` in `text` (0 when there is none).
    private static func count(_ name: String, in text: String) -> Int {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Int(line.dropFirst(name.count + 1)) ?? -1
        }
        return 0
    }
}

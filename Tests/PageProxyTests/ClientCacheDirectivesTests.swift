import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack6 F6, end to end: a client's `only-if-cached`, `no-store`, `max-age=N` and `min-fresh=N` (RFC 9111 §5.2.1),
/// proved from the mock upstream's request record (5 pages).
@Suite struct ClientCacheDirectivesTests {
    static let target = CacheTests.target
    static let allHits = "hits=5 misses=0 revalidated=0 stale=0 bypassed=0"
    static let allMisses = "hits=0 misses=5 revalidated=0 stale=0 bypassed=0"
    static let allRevalidated = "hits=0 misses=0 revalidated=5 stale=0 bypassed=0"

    @Test("only-if-cached: 504 not_cached with no upstream request when a page is missing (all, or some: a partial walk), the cached answer otherwise")
    func onlyIfCachedNeverAsksTheUpstream() async throws {
        try await CacheTests.run { stack, _ in
            let onlyIfCached = ["Cache-Control": "only-if-cached"]
            let empty = try await stack.get(Self.target, headers: onlyIfCached)
            #expect(empty.status == 504)
            #expect(empty.text.contains("\"not_cached\""), "\(empty.text)")
            #expect(stack.mock.log.count == 0)
            // Two pages of five stored: the walk stops at the third, still without asking.
            _ = try await stack.get(Self.target + "&_max_pages=2")
            stack.mock.log.reset()
            let partial = try await stack.get(Self.target, headers: onlyIfCached)
            #expect(partial.status == 504)
            #expect(stack.mock.log.count == 0)
            _ = try await stack.get(Self.target)
            stack.mock.log.reset()
            let cached = try await stack.get(Self.target, headers: onlyIfCached)
            #expect(cached.status == 200)
            #expect(cached.body == MockDataset.mergedJSON(total: 50))
            #expect(cached.header("PageProxy-Cache") == Self.allHits)
            #expect(stack.mock.log.count == 0)
        }
    }

    /// attack15 U1: a page stored but stale was said to be "not in the cache": the answer says it is stored, and how
    /// long ago, so the client knows that a plain request (or `max-stale`) would do.
    @Test func onlyIfCachedOnAStalePageSaysItIsStoredButStale() async throws {
        let wall = ManualWallClock()
        try await CacheTests.run(route: { $0.ttl = .seconds(60) }, clock: wall.clock) { stack, _ in
            _ = try await stack.get(Self.target)
            wall.advance(seconds: 90)
            stack.mock.log.reset()
            let stale = try await stack.get(Self.target, headers: ["Cache-Control": "only-if-cached"])
            #expect(stale.status == 504)
            #expect(stale.text.contains("\"not_cached\""), "\(stale.text)")
            #expect(stale.text.contains("is in the cache but not fresh (stored 90 s ago"), "\(stale.text)")
            #expect(!stale.text.contains("is not in the cache"), "\(stale.text)")
            #expect(stack.mock.log.count == 0)
        }
    }

    /// review9 B1: a route that stores nothing (ttl 0) sent an `only-if-cached` request upstream and answered 200.
    @Test func onlyIfCachedOnARouteThatStoresNothingIsA504() async throws {
        try await CacheTests.run(route: { $0.ttl = .zero }) { stack, _ in
            let response = try await stack.get(Self.target, headers: ["Cache-Control": "only-if-cached"])
            #expect(response.status == 504)
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("no-store: the pages the request fetches are not stored, nor its answer memoized; a stored page still serves it")
    func noStoreStoresNothing() async throws {
        try await CacheTests.run { stack, root in
            let noStore = try await stack.get(Self.target, headers: ["Cache-Control": "no-store"])
            #expect(noStore.status == 200)
            #expect(noStore.header("PageProxy-Cache") == Self.allMisses)
            #expect(Self.entryFiles(root) == 0)
            let plain = try await stack.get(Self.target)
            #expect(plain.header("PageProxy-Cache") == Self.allMisses)
            // Five pages; the memoized answer is too small for an entry of its own (`AnswerEntryWorth`).
            await AnswerEntries.waitForWrites()
            #expect(Self.entryFiles(root) == 5)
            #expect(PersistedAnswerTests.answerFiles(in: root).isEmpty)
            stack.mock.log.reset()
            let again = try await stack.get(Self.target, headers: ["Cache-Control": "no-store"])
            #expect(again.header("PageProxy-Cache") == Self.allHits)
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("max-age=N: pages stored longer ago than N are revalidated; min-fresh=N: pages fresh for less than N too")
    func maxAgeAndMinFreshRevalidate() async throws {
        let wall = ManualWallClock()
        try await CacheTests.run(route: { $0.ttl = .seconds(60) }, clock: wall.clock) { stack, _ in
            _ = try await stack.get(Self.target)
            wall.advance(seconds: 3)
            #expect(try await stack.get(Self.target, headers: ["Cache-Control": "max-age=10"]).header("PageProxy-Cache") == Self.allHits)
            let older = try await stack.get(Self.target, headers: ["Cache-Control": "max-age=1"])
            #expect(older.header("PageProxy-Cache") == Self.allRevalidated)
            #expect(try await stack.get(Self.target, headers: ["Cache-Control": "min-fresh=30"]).header("PageProxy-Cache") == Self.allHits)
            let soon = try await stack.get(Self.target, headers: ["Cache-Control": "min-fresh=100"])
            #expect(soon.header("PageProxy-Cache") == Self.allRevalidated)
            #expect(soon.body == MockDataset.mergedJSON(total: 50))
        }
    }

    /// review15 R4 (RFC 9111 §4.2.3, §5.2.1.1): a page an hour old when it arrives (`Age: 3600` from a CDN) is an hour
    /// old for a client's `max-age=60`, though PageProxy stored it a moment ago; after a restart too, and a 304 that
    /// says its age again keeps it.
    @Test func aClientsMaxAgeCountsThePagesAgeFromTheUpstream() async throws {
        let upstream = try ChangingUpstream()
        defer { Task { await upstream.stop() } }
        upstream.set(body: CacheCoherenceTests.v1, cacheControl: "max-age=7200", more: [("Age", "3600")])
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-age-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let hit = CacheCoherenceTests.oneHit
        let revalidated = "hits=0 misses=0 revalidated=1 stale=0 bypassed=0"
        try await CacheCoherenceTests.run(upstream, directory: root) { stack in
            #expect(try await stack.get("/changing").header("PageProxy-Cache") == CacheCoherenceTests.oneMiss)
            #expect(try await stack.get("/changing", headers: ["Cache-Control": "max-age=7000"]).header("PageProxy-Cache") == hit)
            let young = try await stack.get("/changing", headers: ["Cache-Control": "max-age=60"])
            #expect(young.header("PageProxy-Cache") == revalidated)
            #expect(young.text == CacheCoherenceTests.v1)
        }
        upstream.resetLog()
        try await CacheCoherenceTests.run(upstream, directory: root) { stack in
            let young = try await stack.get("/changing", headers: ["Cache-Control": "max-age=60"])
            #expect(young.header("PageProxy-Cache") == revalidated)
            let old = try await stack.get("/changing", headers: ["Cache-Control": "max-age=7000"])
            #expect(old.header("PageProxy-Cache") == hit)
        }
        #expect(upstream.received.count == 1)
    }

    /// How many entry files the cache directory holds.
    static func entryFiles(_ root: String) -> Int {
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return files.filter { $0.hasSuffix(".entry") }.count
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// DESIGN.md: every in-memory layer above the disk cache answers only what a walk through the cache would. A merged
/// answer is memoized; then its page changes in the cache by each way a page can change; the next merged request
/// must answer what the cache holds, not what the memo remembers.
@Suite struct CacheCoherenceTests {
    static let v1 = #"[{"v":1}]"#
    static let v2 = #"[{"v":2}]"#
    static let ndjsonNoCache = ["Accept": "application/x-ndjson", "Cache-Control": "no-cache"]

    /// A proxy over `directory` (a fresh one unless given) with one route to `upstream`.
    @discardableResult
    static func run<T>(
        _ upstream: ChangingUpstream, directory: String? = nil, maxBytes: Int = 64 << 20, memoBytes: Int? = nil,
        _ body: (TestStack) async throws -> T
    ) async throws -> T {
        let root = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-coherence-\(UUID().uuidString)").path
        defer { if directory == nil { try? FileManager.default.removeItem(atPath: root) } }
        return try await TestStack.run(routes: []) { config in
            config.routes = [upstream.route]
            config.cache = CacheConfig(directory: root, maxBytes: maxBytes, memoBytes: memoBytes)
        } _: { stack in
            try await body(stack)
        }
    }

    /// Asks for the merged answer three times: the second is the memo's (no upstream request), or with the memo off
    /// the first answer of the hit, which works the answer out for the page's version (`PreparedOnePageAnswer`), and the
    /// third is sent from that; returns the first.
    @discardableResult
    static func memoize(_ stack: TestStack, _ upstream: ChangingUpstream) async throws -> RawHTTPClient.Response {
        let first = try await stack.get("/changing")
        #expect(first.text == v1)
        upstream.resetLog()
        for _ in 0..<2 {
            let repeated = try await stack.get("/changing")
            #expect(repeated.text == v1)
            #expect(repeated.header("PageProxy-Cache") == oneHit)
            #expect(repeated.header("ETag") == first.header("ETag"))
        }
        #expect(upstream.received.isEmpty)
        return first
    }

    /// The memo's bound in the tests that change a page under an answer: the default, and none (the one-page answer
    /// worked out for a page's version is the layer in memory then).
    static let memoBounds: [Int?] = [nil, 0]

    /// Asks for the merged answer once more and checks what it says and how many requests reached the upstream.
    @discardableResult
    static func expectMerged(
        _ stack: TestStack, _ upstream: ChangingUpstream, _ body: String, cache: String, upstreamRequests: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> RawHTTPClient.Response {
        upstream.resetLog()
        let merged = try await stack.get("/changing")
        #expect(merged.text == body, sourceLocation: sourceLocation)
        #expect(merged.header("PageProxy-Cache") == cache, sourceLocation: sourceLocation)
        #expect(upstream.received.count == upstreamRequests, sourceLocation: sourceLocation)
        return merged
    }

    static let oneHit = "hits=1 misses=0 revalidated=0 stale=0 bypassed=0"
    static let oneMiss = "hits=0 misses=1 revalidated=0 stale=0 bypassed=0"

    @Test("the reported sequence: v1 → v2 upstream, NDJSON no-cache refetch, then a merged request answers v2", arguments: memoBounds)
    func aPageReplacedBy200IsWhatTheMergedAnswerSays(memoBytes: Int?) async throws {
        let upstream = try ChangingUpstream()
        try await Self.run(upstream, memoBytes: memoBytes) { stack in
            let first = try await Self.memoize(stack, upstream)
            upstream.set(body: Self.v2, cacheControl: "max-age=600")
            let refetched = try await stack.get("/changing", headers: Self.ndjsonNoCache)
            #expect(refetched.text == #"{"v":2}"# + "\n")
            let streamed = try await stack.get("/changing", headers: ["Accept": "application/x-ndjson"])
            #expect(streamed.text == #"{"v":2}"# + "\n")
            let merged = try await Self.expectMerged(stack, upstream, Self.v2, cache: Self.oneHit, upstreamRequests: 0)
            // Another item byte, another tag; and its repeat says the same.
            #expect(merged.header("ETag") != nil && merged.header("ETag") != first.header("ETag"))
            let again = try await Self.expectMerged(stack, upstream, Self.v2, cache: Self.oneHit, upstreamRequests: 0)
            #expect(again.header("ETag") == merged.header("ETag"))
        }
        await upstream.stop()
    }

    @Test("a 304 that changes the page's freshness ends the memoized answer: the next merged request revalidates", arguments: memoBounds)
    func aPageRefreshedBy304IsRevalidatedAsTheCacheSays(memoBytes: Int?) async throws {
        let upstream = try ChangingUpstream()
        try await Self.run(upstream, memoBytes: memoBytes) { stack in
            try await Self.memoize(stack, upstream)
            // Same bytes, same ETag; from now on the upstream wants every use revalidated.
            upstream.set(body: Self.v1, cacheControl: "no-cache")
            let refreshed = try await stack.get("/changing", headers: Self.ndjsonNoCache)
            #expect(refreshed.text == #"{"v":1}"# + "\n")
            #expect(upstream.received.last?.ifNoneMatch != nil)
            try await Self.expectMerged(stack, upstream, Self.v1, cache: "hits=0 misses=0 revalidated=1 stale=0 bypassed=0", upstreamRequests: 1)
            #expect(upstream.received.first?.ifNoneMatch != nil)
        }
        await upstream.stop()
    }

    @Test("a refetch answered no-store removes the page: the next merged request fetches it", arguments: memoBounds)
    func aPageRemovedByNoStoreIsFetchedAgain(memoBytes: Int?) async throws {
        let upstream = try ChangingUpstream()
        try await Self.run(upstream, memoBytes: memoBytes) { stack in
            try await Self.memoize(stack, upstream)
            upstream.set(body: Self.v2, cacheControl: "no-store")
            _ = try await stack.get("/changing", headers: Self.ndjsonNoCache)
            try await Self.expectMerged(stack, upstream, Self.v2, cache: Self.oneMiss, upstreamRequests: 1)
        }
        await upstream.stop()
    }

    @Test("a page evicted from the cache ends the memoized answer: the next merged request fetches it", arguments: memoBounds)
    func anEvictedPageIsFetchedAgain(memoBytes: Int?) async throws {
        let upstream = try ChangingUpstream()
        // Room for a few dozen entries; the memo (an eighth of it) still holds this small answer.
        try await Self.run(upstream, maxBytes: 16 * 1024, memoBytes: memoBytes) { stack in
            try await Self.memoize(stack, upstream)
            // Newer pages (another query is another page) push the first one out.
            for n in 0..<120 {
                let other = try await stack.get("/changing?n=\(n)", headers: ["Accept": "application/x-ndjson"])
                #expect(other.status == 200)
            }
            try await Self.expectMerged(stack, upstream, Self.v1, cache: Self.oneMiss, upstreamRequests: 1)
        }
        await upstream.stop()
    }

    @Test("after a restart over the same directory, a page changed there is what the merged answer says")
    func aRestartedProxyAnswersWhatItsCacheHolds() async throws {
        let upstream = try ChangingUpstream()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-coherence-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.run(upstream, directory: directory) { stack in try await Self.memoize(stack, upstream) }
        upstream.set(body: Self.v2, cacheControl: "max-age=600")
        try await Self.run(upstream, directory: directory) { stack in
            let cached = try await stack.get("/changing")
            #expect(cached.text == Self.v1)
            #expect(cached.header("PageProxy-Cache") == Self.oneHit)
            _ = try await stack.get("/changing", headers: Self.ndjsonNoCache)
        }
        try await Self.run(upstream, directory: directory) { stack in
            try await Self.expectMerged(stack, upstream, Self.v2, cache: Self.oneHit, upstreamRequests: 0)
        }
        await upstream.stop()
    }

    @Test("the ETag of a walk through the cache: the same pages give the same one, across requests and a restart; a changed page or another shape another")
    func theETagFollowsThePages() async throws {
        let upstream = try ChangingUpstream()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-coherence-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The memo off: every answer is a walk through the cache.
        let (first, capped) = try await Self.run(upstream, directory: directory, memoBytes: 0) { stack in
            let first = try await stack.get("/changing")
            let again = try await stack.get("/changing")
            #expect(again.header("PageProxy-Cache") == Self.oneHit)
            #expect(again.header("ETag") == first.header("ETag"))
            let capped = try await stack.get("/changing?_max_items=1")
            #expect(capped.text == Self.v1)
            #expect(capped.header("ETag") != first.header("ETag"))
            return (first, capped)
        }
        #expect(first.header("ETag") != nil)
        try await Self.run(upstream, directory: directory, memoBytes: 0) { stack in
            let restarted = try await stack.get("/changing")
            #expect(restarted.header("PageProxy-Cache") == Self.oneHit)
            #expect(restarted.header("ETag") == first.header("ETag"))
            #expect(try await stack.get("/changing?_max_items=1").header("ETag") == capped.header("ETag"))
            let notModified = try await stack.get("/changing", headers: ["If-None-Match": first.header("ETag") ?? ""])
            #expect(notModified.status == 304)
            upstream.set(body: Self.v2, cacheControl: "max-age=600")
            let changed = try await stack.get("/changing", headers: ["Cache-Control": "no-cache"])
            #expect(changed.text == Self.v2)
            #expect(changed.header("ETag") != first.header("ETag"))
            #expect(try await stack.get("/changing").header("ETag") == changed.header("ETag"))
        }
        await upstream.stop()
    }
}

import Foundation
import Glibc
import PageProxyMock
import Testing

@testable import PageProxyCore

/// `CachingPageSource.freshHit`, the in-place read of a walk through the cache: only a fresh, whole entry that the
/// request's policy lets it use; everything else is left to `fetch` (and the upstream).
@Suite struct FreshHitTests {
    let directory = TemporaryDirectory()
    let clock = ManualClock()
    let request = UpstreamRequest(url: PageURL(string: "http://api.test/items?page=1")!)
    let policy = CachePolicy(ttl: .seconds(60))

    func makeSource() -> CachingPageSource {
        CachingPageSource(store: DiskStore(directory: directory.path, maxBytes: 1 << 20), clock: clock.clock)
    }

    func stored(_ source: CachingPageSource, cacheControl: String? = nil) async throws -> CachingPageSourceTests.Upstream {
        let upstream = CachingPageSourceTests.Upstream.withETag(Locked("\"1\""), cacheControl: cacheControl)
        _ = try await source.fetch(request, policy: policy, transport: upstream, timeout: .seconds(5), maxBodyBytes: 1 << 20)
        return upstream
    }

    @Test func aFreshEntryIsAHitWithItsStoredVersion() async throws {
        let source = makeSource()
        _ = try await stored(source)
        clock.advance(by: .seconds(59))
        let hit = try #require(source.freshHit(request, policy: policy))
        #expect(hit.outcome == .hit)
        #expect(hit.response.body == Array("[\"1\"]".utf8))
        #expect(hit.response.storedChecksum != nil)
        #expect(hit.stored?.freshUntil == clock.source().addingTimeInterval(1))
    }

    @Test("a key the caller worked out ahead is the one looked up")
    func aGivenKeyIsTheOneLookedUp() async throws {
        let source = makeSource()
        _ = try await stored(source)
        #expect(source.freshHit(request, key: CacheKey(request), policy: policy) != nil)
        let other = CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=2")!))
        #expect(source.freshHit(request, key: other, policy: policy) == nil)
        // A walk's page, by its key alone (no request built), on the same terms.
        #expect(source.freshHit(key: CacheKey(request), policy: policy)?.response.body == Array("[\"1\"]".utf8))
        #expect(source.freshHit(key: other, policy: policy) == nil)
        #expect(source.freshHit(key: CacheKey(request), policy: CachePolicy(ttl: .seconds(60), forceRevalidate: true)) == nil)
        #expect(CachingPageSource(store: nil).freshHit(key: CacheKey(request), policy: policy) == nil)
    }

    @Test func nothingStoredAStaleEntryOrNoStoreIsNoHit() async throws {
        let source = makeSource()
        #expect(source.freshHit(request, policy: policy) == nil)
        _ = try await stored(source)
        clock.advance(by: .seconds(61))
        #expect(source.freshHit(request, policy: policy) == nil)
        #expect(CachingPageSource(store: nil).freshHit(request, policy: policy) == nil)
    }

    @Test("no-cache or _fresh (a forced revalidation) and a zero TTL never read in place")
    func forcedRevalidationIsNoHit() async throws {
        let source = makeSource()
        _ = try await stored(source)
        #expect(source.freshHit(request, policy: policy) != nil)
        #expect(source.freshHit(request, policy: CachePolicy(ttl: .seconds(60), forceRevalidate: true)) == nil)
        #expect(source.freshHit(request, policy: CachePolicy(ttl: .zero)) == nil)
    }

    @Test("a torn entry is no hit: the fetch after it goes to the upstream")
    func aTornEntryIsNoHit() async throws {
        let source = makeSource()
        let upstream = try await stored(source)
        let store = try #require(source.store)
        #expect(truncate(store.path(for: CacheKey(request)), 40) == 0)
        #expect(source.freshHit(request, policy: policy) == nil)
        let fetched = try await source.fetch(request, policy: policy, transport: upstream, timeout: .seconds(5), maxBodyBytes: 1 << 20)
        #expect(fetched.outcome == .miss)
        #expect(upstream.requests.count == 2)
    }

    /// A source over a store that another source wrote the page into: a restart.
    private func storedThenRestarted() async throws -> (CachingPageSource, DiskStore) {
        _ = try await stored(makeSource())
        let restarted = makeSource()
        return (restarted, try #require(restarted.store))
    }

    @Test("a stale entry is not held by the read-ahead: the fetch that revalidates it reads its file once")
    func aStaleEntryIsNotReadAhead() async throws {
        let (restarted, store) = try await storedThenRestarted()
        restarted.readAhead(policy: policy) { [request] in [request] }
        await restarted.waitForReadAhead()
        #expect(store.readAheadCount == 1, "fresh: held")
        let again = makeSource()
        clock.advance(by: .seconds(61))
        again.readAhead(policy: policy) { [request] in [request] }
        await again.waitForReadAhead()
        #expect(again.store?.readAheadCount == 0, "stale: not held")
    }

    /// Issue 13, eleventh pass: the walk finds the keys of the pages read ahead in its plan's table, by their numbers,
    /// instead of working each out again.
    @Test("a walk's read-ahead by its plan's keys reads the entries its requests name, and keeps their keys by page number")
    func aReadAheadByThePlansKeysReadsTheRequestsEntries() async throws {
        let (restarted, store) = try await storedThenRestarted()
        let other = try #require(PageURL(string: "http://api.test/other"))
        let keys = CacheKeyPages(
            template: CacheKeyTemplate(headers: request.headers, caFile: request.caFile), capacity: 10, budget: CacheKeyPages.Budget(limit: 10))
        restarted.readAhead(policy: policy, keys: keys, firstNumber: 3) { [request] in [other, request.url] }
        await restarted.waitForReadAhead()
        #expect(store.readAheadAskedCount == 2)
        #expect(store.readAheadCount == 1)
        #expect(keys.count == 4, "pages 3 and 4 kept (slots 1 and 2 empty)")
        #expect(keys.key(for: request.url, number: 4) == CacheKey(request))
        #expect(keys.count == 4)
        #expect(restarted.freshHit(request, policy: policy)?.outcome == .hit)
    }

    /// Issue 13, twelfth pass: the read-ahead worked out all the keys it was told before it read the first file, and
    /// began behind the walk.
    @Test("a read-ahead works each key out as it comes to it: one that stops, full, has worked out none past that key")
    func aReadAheadWorksEachKeyOutAsItComesToIt() async throws {
        let writer = makeSource()
        let upstream = CachingPageSourceTests.Upstream.withETag(Locked("\"1\""))
        let urls = try (1...4).map { try #require(PageURL(string: "http://api.test/items?page=\($0)")) }
        for url in urls {
            _ = try await writer.fetch(UpstreamRequest(url: url), policy: policy, transport: upstream, timeout: .seconds(5), maxBodyBytes: 1 << 20)
        }
        // Four files of one size; a restarted store whose read-ahead holds one of them at most.
        let store = try #require(writer.store)
        #expect(store.entryCount == 4 && store.totalBytes % 4 == 0)
        let restarted = CachingPageSource(
            store: DiskStore(directory: directory.path, maxBytes: 1 << 20, memoryLimit: store.totalBytes / 4), clock: clock.clock)
        let keys = CacheKeyPages(
            template: CacheKeyTemplate(headers: request.headers, caFile: request.caFile), capacity: 10, budget: CacheKeyPages.Budget(limit: 10))
        restarted.readAhead(policy: policy, keys: keys, firstNumber: 1) { urls }
        await restarted.waitForReadAhead()
        #expect(restarted.store?.readAheadCount == 1)
        #expect(restarted.store?.readAheadAskedCount == 2, "stopped at page 2: no room")
        #expect(keys.count == 2, "pages 1 and 2 keyed, not 3 and 4")
    }
}

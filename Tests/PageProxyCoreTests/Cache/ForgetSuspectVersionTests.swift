import Foundation
import Testing

@testable import PageProxyCore

/// fix37 (stray19's leftover): a walk that finds its pages suspect removes the versions it read of them, and only
/// those: a newer version another fetch stored meanwhile stays, in this process's index and on disk.
@Suite struct ForgetSuspectVersionTests {
    typealias Upstream = CachingPageSourceTests.Upstream
    typealias Make = DiskStoreTests

    let directory = TemporaryDirectory()
    let clock = ManualClock()
    let request = UpstreamRequest(url: PageURL(string: "http://api.test/items?page=1")!)

    private func fetch(_ source: CachingPageSource, _ upstream: Upstream, forceRevalidate: Bool = false) async throws -> CachingPageSource.Fetched {
        try await source.fetch(
            request, policy: CachePolicy(ttl: .seconds(60), forceRevalidate: forceRevalidate), transport: upstream,
            timeout: CachingPageSourceTests.pageTimeout, maxBodyBytes: 1 << 20)
    }

    @Test("a suspect walk's forget of the version it read leaves the newer one another fetch stored since: the next lookup is a hit, no fetch")
    func forgettingAnOlderVersionKeepsTheNewerOne() async throws {
        let source = CachingPageSource(store: DiskStore(directory: directory.path, maxBytes: 1 << 20), clock: clock.clock)
        let etag = Locked("\"1\"")
        let upstream = Upstream.withETag(etag)
        // The suspect walk reads the page (version g)...
        let suspect = try #require(try await fetch(source, upstream).stored?.stamp)
        // ...another walk asks for it again and stores a newer, good copy (g+1) before the first one forgets.
        etag.withLock { $0 = "\"2\"" }
        let newer = try #require(try await fetch(source, upstream, forceRevalidate: true).stored?.stamp)
        #expect(newer.generation > suspect.generation)
        await source.forget([suspect])
        let after = try await fetch(source, upstream)
        #expect(after.outcome == .hit)
        #expect(after.response.body == Array("[\"2\"]".utf8))
        #expect(after.stored?.stamp == newer)
        #expect(upstream.requests.count == 2)
        // The version the store holds is removed when it is the one named: the next lookup asks the upstream.
        await source.forget([newer])
        #expect(try await fetch(source, upstream).outcome == .miss)
        #expect(upstream.requests.count == 3)
    }

    @Test("a stamp's removal takes that version's record and file; an older stamp's takes nothing")
    func removalByStampTakesOnlyThatVersion() throws {
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let key = Make.key(1)
        let old = try #require(store.write(Make.entry(1, bodyBytes: 10), for: key))
        let new = try #require(store.write(Make.entry(1, bodyBytes: 20), for: key))
        #expect(!store.remove(old))
        #expect(store.read(key)?.body.count == 20)
        #expect(store.changeCount(ifCurrent: [new]) != nil)
        #expect(store.remove(new))
        #expect(store.read(key) == nil)
        #expect(store.entryCount == 0)
        #expect(store.totalBytes == 0)
        #expect(!store.remove(new))
    }

    @Test("another process's newer file renamed over the version named is not taken: the record goes, and the next lookup reads that file")
    func anotherProcessesNewerFileStays() throws {
        let (a, b) = (DiskStore(directory: directory.path, maxBytes: 1 << 20), DiskStore(directory: directory.path, maxBytes: 1 << 20))
        let key = Make.key(1)
        let suspect = try #require(a.write(Make.entry(1, bodyBytes: 10), for: key))
        #expect(b.write(Make.entry(1, bodyBytes: 30), for: key) != nil)
        #expect(a.remove(suspect))
        #expect(a.read(key)?.body.count == 30)
        #expect(b.read(key)?.body.count == 30)
    }
}

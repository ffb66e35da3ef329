import Foundation
import Testing

@testable import PageProxyCore

/// What a request's policy serves fresh: the route's TTL, and the client's own `max-age` and `min-fresh` (attack6 F6,
/// RFC 9111 §5.2.1.1, §5.2.1.3).
@Suite struct CachePolicyTests {
    static let stored = Date(timeIntervalSince1970: 1_800_000_000)
    /// An entry stored at `stored`, fresh for 60 s by the route's TTL.
    static let entry = CacheEntry(status: .ok, headers: HTTPHeaders(), body: Array("[]".utf8), storedAt: stored, freshUntil: stored + 60)

    @Test func theClientsMaxAgeRevalidatesAnOlderEntry() {
        var policy = CachePolicy(ttl: .seconds(60))
        #expect(policy.servesFresh(Self.entry, at: Self.stored + 3) == Self.stored + 60)
        policy.maxAge = .seconds(1)
        #expect(policy.servesFresh(Self.entry, at: Self.stored + 3) == nil)
        #expect(policy.servesFresh(Self.entry, at: Self.stored + 1) == Self.stored + 60)
    }

    /// review15 R4 (RFC 9111 §4.2.3, §5.2.1.1): an entry that was an hour old when it arrived (behind a CDN) is an hour
    /// old for the client's `max-age`, however recently PageProxy stored it.
    @Test func theClientsMaxAgeCountsThePagesAgeWhenStored() {
        var entry = Self.entry
        entry.initialAge = .seconds(3600)
        var policy = CachePolicy(ttl: .seconds(60))
        #expect(policy.servesFresh(entry, at: Self.stored + 3) == Self.stored + 60)
        policy.maxAge = .seconds(60)
        #expect(policy.servesFresh(entry, at: Self.stored + 3) == nil)
        policy.maxAge = .seconds(3610)
        #expect(policy.servesFresh(entry, at: Self.stored + 3) == Self.stored + 60)
        #expect(policy.servesFresh(entry, at: Self.stored + 11) == nil)
    }

    @Test func theClientsMinFreshRevalidatesAnEntryAboutToGoStale() {
        var policy = CachePolicy(ttl: .seconds(60))
        policy.minFresh = .seconds(100)
        #expect(policy.servesFresh(Self.entry, at: Self.stored) == nil)
        policy.minFresh = .seconds(30)
        #expect(policy.servesFresh(Self.entry, at: Self.stored + 20) == Self.stored + 60)
        #expect(policy.servesFresh(Self.entry, at: Self.stored + 31) == nil)
    }

    @Test("an entry stored in the future (the clock was ahead, or stepped back since) is revalidated, not fresh for the skew (attack13 M1)")
    func anEntryStoredInTheFutureIsRevalidated() {
        let policy = CachePolicy(ttl: .seconds(60))
        #expect(policy.servesFresh(Self.entry, at: Self.stored - 86_400) == nil)
        #expect(policy.servesFresh(Self.entry, at: Self.stored - 1) == nil)
        // Within the tolerance for two threads' clocks a moment apart (`WallClockStep`, shared with merged answers): fresh.
        #expect(policy.servesFresh(Self.entry, at: Self.stored - 0.25) == Self.stored + 60)
        // Stored a moment ago, as usual: unchanged.
        #expect(policy.servesFresh(Self.entry, at: Self.stored + 1) == Self.stored + 60)
    }
}

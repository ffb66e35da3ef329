import Foundation
import Testing

@testable import PageProxyCore

/// `EntryCopies`: the byte accounting of a store's copies in memory, without a disk (review15 S1).
@Suite struct EntryCopiesTests {
    static func key(_ n: Int) -> CacheKey { CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=\(n)")!)) }

    static func entry(bytes: Int) -> CacheEntry {
        CacheEntry(
            status: .ok, headers: HTTPHeaders(), body: Array(repeating: UInt8(ascii: "1"), count: bytes), storedAt: Date(timeIntervalSince1970: 0),
            freshUntil: Date(timeIntervalSince1970: 60))
    }

    @Test("copies are counted by their bodies; the least recently used make room, and a use moves a copy to the newest end")
    func leastRecentlyUsedMakeRoom() throws {
        var copies = EntryCopies()
        let first = copies.keep(Self.entry(bytes: 40), for: Self.key(1), limit: 100, batch: 8)
        _ = copies.keep(Self.entry(bytes: 40), for: Self.key(2), limit: 100, batch: 8)
        #expect(copies.bytes == 80)
        // Page 1 used since: page 2 is the oldest, and goes for page 3.
        copies.touch(try #require(first.use))
        let third = copies.keep(Self.entry(bytes: 40), for: Self.key(3), limit: 100, batch: 8)
        #expect(third.use != nil)
        #expect(third.dropped.map { $0.key } == [Self.key(2)])
        #expect(copies.bytes == 80)
        #expect(copies[Self.key(1)] != nil && copies[Self.key(2)] == nil && copies[Self.key(3)] != nil)
    }

    @Test("a copy kept as the oldest (read at start, no request used it) is the first to make room")
    func aCopyKeptAsTheOldestGoesFirst() {
        var copies = EntryCopies()
        _ = copies.keep(Self.entry(bytes: 40), for: Self.key(1), limit: 100, batch: 8)
        _ = copies.keep(Self.entry(bytes: 40), for: Self.key(2), limit: 100, batch: 8, asOldest: true)
        let third = copies.keep(Self.entry(bytes: 40), for: Self.key(3), limit: 100, batch: 8)
        #expect(third.dropped.map { $0.key } == [Self.key(2)])
    }

    @Test("at most a batch of copies is dropped at a time: a copy that needs more is not kept, and what was dropped is said")
    func aBatchAtATime() {
        var copies = EntryCopies()
        for n in 1...4 { _ = copies.keep(Self.entry(bytes: 10), for: Self.key(n), limit: 40, batch: 8) }
        let large = copies.keep(Self.entry(bytes: 40), for: Self.key(9), limit: 40, batch: 2)
        #expect(large.use == nil)
        #expect(large.dropped.map { $0.key } == [Self.key(1), Self.key(2)])
        #expect(copies.bytes == 20 && copies.count == 2)
        let again = copies.keep(Self.entry(bytes: 40), for: Self.key(9), limit: 40, batch: 2)
        #expect(again.use != nil)
        #expect(copies.bytes == 40 && copies.count == 1)
    }

    @Test("a copy dropped, or all of them, leaves the bytes of the rest")
    func dropsKeepTheCount() {
        var copies = EntryCopies()
        let one = copies.keep(Self.entry(bytes: 30), for: Self.key(1), limit: 100, batch: 8)
        _ = copies.keep(Self.entry(bytes: 20), for: Self.key(2), limit: 100, batch: 8)
        #expect(copies.drop(Self.key(1), use: one.use)?.body.count == 30)
        #expect(copies.drop(Self.key(1), use: nil) == nil)
        #expect(copies.bytes == 20)
        // Its place in the order went with it: the next room made takes page 2, not a key no longer there.
        let next = copies.keep(Self.entry(bytes: 90), for: Self.key(3), limit: 100, batch: 8)
        #expect(next.dropped.map { $0.key } == [Self.key(2)])
        #expect(copies.dropAll().keys.sorted { $0.hex < $1.hex } == [Self.key(3)])
        #expect(copies.bytes == 0 && copies.count == 0)
    }
}

import Foundation
import Testing

@testable import PageProxyCore

/// `ReadAheadHold`: the bound and byte accounting of the entries a store read ahead, without a disk (review15 S1).
@Suite struct ReadAheadHoldTests {
    static func ahead(bytes: Int, generation: UInt64 = 1, heldAtUse: UInt64 = 0) -> DiskStore.ReadAhead {
        DiskStore.ReadAhead(entry: EntryCopiesTests.entry(bytes: bytes), generation: generation, inode: 1, touched: false, heldAtUse: heldAtUse)
    }

    @Test("an entry taken leaves the count; one of another version is released, not served")
    func takenByVersion() {
        var hold = ReadAheadHold(countLimit: 4)
        var released: [CacheEntry] = []
        hold.hold(Self.ahead(bytes: 30, generation: 1), for: EntryCopiesTests.key(1))
        hold.hold(Self.ahead(bytes: 20, generation: 1), for: EntryCopiesTests.key(2))
        #expect(hold.bytes == 50 && hold.count == 2)
        #expect(hold.take(EntryCopiesTests.key(1), generation: 1, released: &released)?.entry.body.count == 30)
        #expect(hold.take(EntryCopiesTests.key(2), generation: 2, released: &released) == nil)
        #expect(released.map(\.body.count) == [20])
        #expect(hold.bytes == 0 && hold.isEmpty)
        #expect(hold.take(EntryCopiesTests.key(1), generation: 1, released: &released) == nil)
    }

    @Test("full: only entries no lookup took while twice the bound of uses ran make room, oldest first")
    func onlyLeftEntriesMakeRoom() {
        var hold = ReadAheadHold(countLimit: 2)
        var released: [CacheEntry] = []
        hold.hold(Self.ahead(bytes: 10, heldAtUse: 0), for: EntryCopiesTests.key(1))
        hold.hold(Self.ahead(bytes: 10, heldAtUse: 3), for: EntryCopiesTests.key(2))
        // Two held, a count of two: full, and both young at use 4.
        #expect(!hold.hasRoom(for: 1, byteLimit: 100, useCounter: 4, released: &released))
        #expect(released.isEmpty && hold.count == 2)
        // At use 5 the first was held 5 uses ago (> 2 × 2): it makes room; the second is still young.
        #expect(hold.hasRoom(for: 1, byteLimit: 100, useCounter: 5, released: &released))
        #expect(released.count == 1 && hold.count == 1 && hold.bytes == 10 && hold.holds(EntryCopiesTests.key(2)))
        // The byte limit too.
        #expect(!hold.hasRoom(for: 91, byteLimit: 100, useCounter: 5, released: &released))
        #expect(hold.hasRoom(for: 90, byteLimit: 100, useCounter: 5, released: &released))
    }

    @Test("an entry dropped, or all of them, leaves the bytes of the rest; keys taken do not hold room")
    func dropsKeepTheCount() {
        var hold = ReadAheadHold(countLimit: 2)
        var released: [CacheEntry] = []
        hold.hold(Self.ahead(bytes: 10), for: EntryCopiesTests.key(1))
        hold.hold(Self.ahead(bytes: 15), for: EntryCopiesTests.key(2))
        #expect(hold.drop(EntryCopiesTests.key(1))?.entry.body.count == 10)
        #expect(hold.bytes == 15)
        // Key 1 is still in the order, taken: it is passed over, not counted.
        #expect(hold.hasRoom(for: 85, byteLimit: 100, useCounter: 0, released: &released))
        #expect(hold.dropAll().count == 1)
        #expect(hold.bytes == 0 && hold.isEmpty)
    }
}

import Foundation
import Glibc
import PageProxyMock
import Synchronization
import Testing

@testable import PageProxyCore

/// attack13 L2 and L3: what a write that finds no space does with a page it can never store, how a volume out of
/// inodes is told, and the fan-out folders an eviction empties. The volume is the test's (`readVolume`), and writes
/// fail with ENOSPC on demand (`failWriting`): no small file system is mounted.
@Suite struct CacheVolumeLimitsTests {
    private typealias Store = DiskStoreTests

    @Test("a page the volume could not hold with every entry evicted is sent, not stored: it evicts nothing (L3: a 3 MB page on a 2 MB volume emptied the cache)")
    func aPageLargerThanTheVolumeEvictsNothing() {
        let directory = TemporaryDirectory()
        let store = DiskStore(
            directory: directory.path, maxBytes: 1 << 20, failWriting: { key in key == Store.key(99) ? ENOSPC : nil },
            readVolume: { _ in CacheVolume(freeBytes: 4096, freeInodes: 1000) })
        for page in 1...10 { store.write(Store.entry(page), for: Store.key(page)) }
        // 10 entries of ~0.2 KB and 4 KB free: 20 KB could never fit.
        #expect(store.write(Store.entry(99, bodyBytes: 20_000), for: Store.key(99)) == nil)
        #expect(store.entryCount == 10)
        #expect((1...10).allSatisfy { store.contains(Store.key($0)) })
        #expect(store.failedWrites == [.largerThanVolume: 1])
    }

    @Test("a page that fits the volume once entries go still evicts them and is stored")
    func aPageThatFitsOnceEntriesGoEvicts() {
        let directory = TemporaryDirectory()
        let full = Mutex(1)
        let store = DiskStore(
            directory: directory.path, maxBytes: 1 << 20,
            failWriting: { _ in full.withLock { left in left > 0 ? { left -= 1; return ENOSPC }() : nil } },
            readVolume: { _ in CacheVolume(freeBytes: 4096, freeInodes: 1000) })
        full.withLock { $0 = 0 }
        for page in 1...40 { store.write(Store.entry(page), for: Store.key(page)) }
        full.withLock { $0 = 1 }
        #expect(store.write(Store.entry(99, bodyBytes: 2_000), for: Store.key(99)) != nil)
        #expect(!store.contains(Store.key(1)))
        #expect(store.failedWrites.isEmpty)
    }

    @Test("a page larger than maxBytes evicts nothing and is counted as too large")
    func aPageLargerThanTheBoundEvictsNothing() {
        let directory = TemporaryDirectory()
        let size = Store.fileSize(bodyBytes: 100)
        let store = DiskStore(directory: directory.path, maxBytes: size * 5)
        for page in 1...3 { store.write(Store.entry(page), for: Store.key(page)) }
        #expect(store.write(Store.entry(9, bodyBytes: size * 6), for: Store.key(9)) == nil)
        #expect(store.entryCount == 3)
        #expect(store.failedWrites == [.tooLarge: 1])
    }

}

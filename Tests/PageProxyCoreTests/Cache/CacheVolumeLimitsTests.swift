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

    @Test("a volume with space but no free inodes is told as out of inodes, and its failed writes counted so (L2: it said \"volume full\" with 64 MB free)")
    func outOfInodesIsSaidSo() {
        let directory = TemporaryDirectory()
        let told = Mutex<[Bool]>([])
        let store = DiskStore(
            directory: directory.path, maxBytes: 1 << 20, onVolumeFull: { _, outOfInodes in told.withLock { $0.append(outOfInodes) } },
            failWriting: { key in key == Store.key(7) ? ENOSPC : nil },
            readVolume: { _ in CacheVolume(freeBytes: 64 << 20, freeInodes: 0) })
        for page in 1...5 { store.write(Store.entry(page), for: Store.key(page)) }
        #expect(store.write(Store.entry(7), for: Store.key(7)) == nil)
        #expect(told.withLock { $0 } == [true])
        #expect(store.failedWrites == [.noInodes: 1])
        #expect(CacheVolume(freeBytes: 0, freeInodes: 0).isOutOfInodes == false)
        #expect(CacheVolume(freeBytes: 1, freeInodes: nil).isOutOfInodes == false)
    }

    @Test("an eviction removes the fan-out folders it empties (L2: empty folders held every inode), and a write makes its folder again")
    func evictionRemovesTheFoldersItEmpties() async throws {
        let directory = TemporaryDirectory()
        let size = Store.fileSize(bodyBytes: 100)
        let store = DiskStore(directory: directory.path, maxBytes: size * 20)
        for page in 1...60 { store.write(Store.entry(page), for: Store.key(page)) }
        await store.waitForEvictions()
        let kept = (1...60).filter { store.contains(Store.key($0)) }
        #expect(kept.count < 60)
        let folders = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.count == 2 }
        let empty = try folders.filter { try FileManager.default.contentsOfDirectory(atPath: directory.path + "/" + $0).isEmpty }
        #expect(empty.isEmpty, "empty fan-out folders left: \(empty)")
        #expect(Set(folders) == Set(kept.map { Store.key($0).directoryName }))
        // Every evicted key's folder that is gone is made again by its next write.
        for page in 1...60 where !kept.contains(page) {
            #expect(store.write(Store.entry(page), for: Store.key(page)) != nil)
            #expect(store.read(Store.key(page)) != nil)
            break
        }
    }
}

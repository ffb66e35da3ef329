import Foundation
import Glibc
import Synchronization
import Testing

@testable import PageProxyCore

/// Entries read into memory at start (issue 13, twenty-fifth pass: the first walk after a restart read every file on
/// the request's path): verified as a lookup verifies them, never kept once their page changed, within the memory
/// bound, newest first, and no use of the entries (the LRU order of the files stays as it was).
@Suite struct WarmUpTests {
    /// A store over a directory holding entries 1 through `count` (`bodyBytes` each, written in that order) written by
    /// another store: a restart.
    private static func restarted(in directory: TemporaryDirectory, count: Int = 5, bodyBytes: Int = 6000, maxBytes: Int = 8 << 20) -> DiskStore {
        let writer = DiskStore(directory: directory.path, maxBytes: maxBytes)
        for page in 1...count { writer.write(DiskStoreTests.entry(page, bodyBytes: bodyBytes), for: DiskStoreTests.key(page)) }
        return DiskStore(directory: directory.path, maxBytes: maxBytes)
    }

    @Test("a warm-up after a restart keeps every entry in memory, byte-exact: the first lookups read no file")
    func aWarmUpKeepsTheEntriesInMemory() {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory)
        let done = store.warmUp(maxBytes: 1 << 20)
        #expect(done == DiskStore.WarmUp(entries: 5, bytes: 5 * 6000, skipped: 0))
        for page in 1...5 {
            #expect(store.holdsInMemory(DiskStoreTests.key(page)))
            #expect(store.lookup(DiskStoreTests.key(page))?.entry == DiskStoreTests.entry(page, bodyBytes: 6000))
        }
        #expect(store.fileReadCount == 0)
        // A second warm-up finds them all in memory: it reads nothing more.
        #expect(store.warmUp(maxBytes: 1 << 20).entries == 0)
    }

    @Test("a warm-up reads the newest entries that fit its bound together, and drops no copy already kept")
    func aWarmUpKeepsTheNewestWithinItsBound() {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory, count: 6)
        let size = DiskStoreTests.fileSize(bodyBytes: 6000)
        // Page 1 read twice (its second hit keeps a copy): now the most recently used.
        _ = store.read(DiskStoreTests.key(1))
        _ = store.read(DiskStoreTests.key(1))
        #expect(store.holdsInMemory(DiskStoreTests.key(1)))
        let done = store.warmUp(maxBytes: 4 * size)
        // Page 1's copy is already there and counted; the three newest others fit beside it (6, 5, 4), not 3 and 2.
        #expect(done.entries == 3)
        for page in [1, 4, 5, 6] { #expect(store.holdsInMemory(DiskStoreTests.key(page)), "page \(page)") }
        for page in [2, 3] { #expect(!store.holdsInMemory(DiskStoreTests.key(page)), "page \(page)") }
        #expect(store.memoryByteCount <= 4 * size)
        // Entries past the per-entry limit (a large page, a merged answer's own entry) are left to their lookups.
        let large = DiskStoreTests.key(99)
        store.write(DiskStoreTests.entry(99, bodyBytes: DiskStore.warmUpEntryLimit), for: large)
        let again = DiskStore(directory: directory.path, maxBytes: 8 << 20, memoryLimit: 4 << 20)
        again.warmUp(maxBytes: 4 << 20)
        #expect(!again.holdsInMemory(large))
        #expect(again.holdsInMemory(DiskStoreTests.key(6)))
    }

    @Test("a merged answer's own entry is read but not kept as a page copy (review25 LOW); its pages are")
    func aWarmUpLeavesAnAnswersOwnEntry() throws {
        let (directory, _, _, _) = try AnswerEntriesTests.kept()
        // A restart: this store has not read the answer, so nothing but its bytes tells it from a page.
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(store.answerEntryCount == 0)
        let done = store.warmUp(maxBytes: 1 << 20)
        #expect(done == DiskStore.WarmUp(entries: 2, bytes: 2 * DiskStoreTests.entry(1).body.count, skipped: 0, answers: 1))
        #expect(!store.holdsInMemory(AnswerEntriesTests.answerKey))
        for page in [1, 2] { #expect(store.holdsInMemory(DiskStoreTests.key(page)), "page \(page)") }
        // The memo still finds it, from its file.
        #expect(AnswerEntries(store: store).read(AnswerEntriesTests.answerKey, at: AnswerEntriesTests.before) != nil)
        // A page with no fields is still a page.
        var bare = DiskStoreTests.entry(3)
        bare.headers = [:]
        bare.mustRevalidate = true
        #expect(!AnswerEntryFormat.isAnswer(bare))
    }

    @Test("a torn or corrupt entry is not kept: its lookup finds it, a miss, and removes it; the others are kept")
    func aTornOrCorruptEntryIsLeftForTheLookup() throws {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory, count: 3)
        let (torn, corrupt) = (DiskStoreTests.key(1), DiskStoreTests.key(2))
        #expect(truncate(store.path(for: torn), 5000) == 0)
        // One byte of the body changed in place, the file's size unchanged: only the checksum can tell.
        let fd = open(store.path(for: corrupt), O_WRONLY)
        try #require(fd >= 0)
        var byte = UInt8(ascii: "y")
        let size = DiskStoreTests.fileSize(bodyBytes: 6000)
        #expect(pwrite(fd, &byte, 1, off_t(size - 10)) == 1)
        close(fd)
        let done = store.warmUp(maxBytes: 1 << 20)
        #expect(done.entries == 1)
        #expect(done.skipped == 2)
        #expect(!store.holdsInMemory(torn))
        #expect(!store.holdsInMemory(corrupt))
        #expect(FileManager.default.fileExists(atPath: store.path(for: torn)), "the warm-up removes nothing")
        #expect(store.read(torn) == nil)
        #expect(store.read(corrupt) == nil)
        #expect(!FileManager.default.fileExists(atPath: store.path(for: torn)))
        #expect(!FileManager.default.fileExists(atPath: store.path(for: corrupt)))
        #expect(store.read(DiskStoreTests.key(3)) == DiskStoreTests.entry(3, bodyBytes: 6000))
    }

    @Test("an entry rewritten or removed after the warm-up read it is never kept as it was read")
    func aPageChangedDuringTheWarmUpIsNotKept() {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory, count: 3)
        let (rewritten, removed) = (DiskStoreTests.key(1), DiskStoreTests.key(2))
        let done = store.warmUp(maxBytes: 1 << 20, onRead: { key in
            // Between the read and the keep: a 200 replacing the page, and a `no-store` removing another.
            if key == rewritten { store.write(DiskStoreTests.entry(9, bodyBytes: 10), for: rewritten) }
            if key == removed { store.remove(removed) }
        })
        #expect(done.entries == 1)
        #expect(done.skipped == 2)
        #expect(!store.holdsInMemory(rewritten))
        #expect(!store.holdsInMemory(removed))
        #expect(store.read(rewritten) == DiskStoreTests.entry(9, bodyBytes: 10))
        #expect(store.read(removed) == nil)
    }

    @Test("a file another process renamed over after the start-up scan is not kept by the warm-up: its lookup reads it as a new version")
    func anotherProcessVersionIsLeftForTheLookup() throws {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory, count: 2)
        let key = DiskStoreTests.key(1)
        let scanned = try #require(store.versions(of: [key])?.first)
        #expect(DiskStore(directory: directory.path, maxBytes: 8 << 20).write(DiskStoreTests.entry(7, bodyBytes: 50), for: key) != nil)
        let done = store.warmUp(maxBytes: 1 << 20)
        #expect(done.entries == 1)
        #expect(!store.holdsInMemory(key))
        let read = try #require(store.lookup(key))
        #expect(read.entry == DiskStoreTests.entry(7, bodyBytes: 50))
        #expect(read.stamp != scanned.stamp, "a new version: answers built on the scanned one no longer match")
        #expect(store.changeCount(ifCurrent: [scanned.stamp]) == nil)
    }

    @Test("a warm-up is no use: the eviction takes the same oldest entries, and drops their copies")
    func aWarmUpLeavesTheEvictionOrder() async {
        let directory = TemporaryDirectory()
        let size = DiskStoreTests.fileSize(bodyBytes: 100)
        let store = Self.restarted(in: directory, count: 6, bodyBytes: 100, maxBytes: size * 7)
        #expect(store.warmUp(maxBytes: 1 << 20).entries == 6)
        // Past 95 % of the bound: eviction goes down to 85 %, the least recently used files first (1, then 2), as it
        // would without the warm-up.
        store.write(DiskStoreTests.entry(7), for: DiskStoreTests.key(7))
        await store.waitForEvictions()
        #expect(!store.contains(DiskStoreTests.key(1)))
        #expect(!store.contains(DiskStoreTests.key(2)))
        #expect(store.contains(DiskStoreTests.key(3)))
        #expect(!store.holdsInMemory(DiskStoreTests.key(1)))
        #expect(!store.holdsInMemory(DiskStoreTests.key(2)))
        #expect(store.read(DiskStoreTests.key(1)) == nil)
        #expect(store.read(DiskStoreTests.key(3)) == DiskStoreTests.entry(3))
    }

    @Test("a copy's first hit refreshes its file's time only when a read of the file would: not when it is recent")
    func aRecentFileIsNotTouchedByItsCopysFirstHit() throws {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory, count: 2)
        let (recent, old) = (DiskStoreTests.key(1), DiskStoreTests.key(2))
        var long = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 1_000, tv_nsec: 0)]
        try #require(utimensat(AT_FDCWD, store.path(for: old), &long, 0) == 0)
        let before = try #require(CacheFileSystem.fileInfo(store.path(for: recent))?.used)
        #expect(store.warmUp(maxBytes: 1 << 20).entries == 2)
        #expect(store.read(recent) == DiskStoreTests.entry(1, bodyBytes: 6000))
        #expect(store.read(old) == DiskStoreTests.entry(2, bodyBytes: 6000))
        #expect(try #require(CacheFileSystem.fileInfo(store.path(for: recent))?.used) == before, "written a moment ago: left as it is")
        #expect(try #require(CacheFileSystem.fileInfo(store.path(for: old))?.used) > 1_000_000_000_000, "refreshed by its first hit")
        #expect(store.fileReadCount == 0)
    }

    @Test("a warm-up in the background is counted once done; a disabled store or a zero bound runs none")
    func aBackgroundWarmUpIsCounted() async throws {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory, count: 2)
        store.warmUpInBackground(maxBytes: 0)
        let done = Mutex<DiskStore.WarmUp?>(nil)
        store.warmUpInBackground(maxBytes: 1 << 20) { warmed, _ in done.withLock { $0 = warmed } }
        let deadline = ContinuousClock.now + .seconds(20)
        while store.warmUpCount == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(store.warmUpCount == 1)
        #expect(done.withLock { $0 }?.entries == 2)
        #expect(store.holdsInMemory(DiskStoreTests.key(1)))
    }
}

import CLinux
import Foundation
import Glibc
import PageProxyMock
import Synchronization
import Testing

@testable import PageProxyCore

/// The disk store: atomic files owned by the user, corrupted files removed, LRU by bytes across restarts, and a
/// directory that cannot be used turning the store off with one reason.
@Suite struct DiskStoreTests {
    static func key(_ page: Int) -> CacheKey {
        CacheKey(UpstreamRequest(url: PageURL(string: "http://api.test/items?page=\(page)")!))
    }

    static func entry(_ page: Int, bodyBytes: Int = 100) -> CacheEntry {
        CacheEntry(
            status: .ok, headers: HTTPHeaders([("ETag", "\"\(page)\"")]), body: [UInt8](repeating: UInt8(ascii: "x"), count: bodyBytes),
            storedAt: Date(timeIntervalSince1970: 1_000), freshUntil: Date(timeIntervalSince1970: 2_000))
    }

    /// The size of one entry file made by `entry(_:bodyBytes:)`.
    static func fileSize(bodyBytes: Int) -> Int {
        CacheEntryFormat.encode(entry(1, bodyBytes: bodyBytes), key: key(1)).count
    }

    @Test func writeThenReadGivesTheEntryBack() {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(store.read(Self.key(1)) == nil)
        store.write(Self.entry(1), for: Self.key(1))
        #expect(store.read(Self.key(1)) == Self.entry(1))
        #expect(store.read(Self.key(2)) == nil)
        #expect(directory.files == ["\(Self.key(1).directoryName)/\(Self.key(1).fileName)"])
    }

    @Test func filesAreOwnerOnly() throws {
        let directory = TemporaryDirectory()
        let root = directory.path + "/cache"
        let store = DiskStore(directory: root, maxBytes: 1 << 20)
        store.write(Self.entry(1), for: Self.key(1))
        var info = stat()
        #expect(stat(store.path(for: Self.key(1)), &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(stat(root + "/" + Self.key(1).directoryName, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
        #expect(stat(root, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o700)
    }

    @Test(arguments: [0, 10, 51, 52, 100])
    func aTruncatedEntryIsAMissAndIsRemoved(_ length: Int) throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        store.write(Self.entry(1), for: Self.key(1))
        let path = store.path(for: Self.key(1))
        #expect(truncate(path, off_t(length)) == 0)
        #expect(store.read(Self.key(1)) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(store.totalBytes == 0)
    }

    @Test func aCorruptedEntryIsAMissAndIsRemoved() throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        store.write(Self.entry(1), for: Self.key(1))
        let path = store.path(for: Self.key(1))
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count - 3] ^= 0x20  // a flipped bit in the body
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(store.read(Self.key(1)) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        // And the next write stores it again.
        store.write(Self.entry(1), for: Self.key(1))
        #expect(store.read(Self.key(1)) == Self.entry(1))
    }

    @Test("a lookup on the pool that finds a corrupt entry leaves its removal (the directory's lock) to the lookup off it")
    func aCorruptedEntryFoundInlineIsRemovedOffThePool() throws {
        let directory = TemporaryDirectory()
        DiskStore(directory: directory.path, maxBytes: 1 << 20).write(Self.entry(1), for: Self.key(1))
        let reopened = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let path = reopened.path(for: Self.key(1))
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count - 3] ^= 0x20  // a flipped bit in the body
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // The removal takes the cache directory's lock, which another process may hold through a whole scan: not on
        // a thread of the cooperative pool (review10).
        guard case .wouldBlock = reopened.lookupInline(Self.key(1)) else {
            Issue.record("a corrupt entry found inline should be left to the lookup off the pool")
            return
        }
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(reopened.read(Self.key(1)) == nil)
        #expect(!FileManager.default.fileExists(atPath: path) && reopened.totalBytes == 0)
    }

    @Test("a symbolic link in an entry's place is no entry, even to a valid entry file: a miss (attack13 H1)")
    func aSymbolicLinkInAnEntrysPlaceIsAMiss() throws {
        let directory = TemporaryDirectory()
        DiskStore(directory: directory.path + "/cache", maxBytes: 1 << 20).write(Self.entry(1), for: Self.key(1))
        let store = DiskStore(directory: directory.path + "/cache", maxBytes: 1 << 20)
        let path = store.path(for: Self.key(1))
        let elsewhere = directory.path + "/elsewhere.entry"
        try FileManager.default.moveItem(atPath: path, toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: elsewhere)
        #expect(store.read(Self.key(1)) == nil)
    }

    @Test("a FIFO in an entry's place is a miss at once: its open never waits for a writer (attack13 H1: it held the pool)", .timeLimit(.minutes(1)))
    func aFIFOInAnEntrysPlaceIsAMissAtOnce() async throws {
        let directory = TemporaryDirectory()
        DiskStore(directory: directory.path + "/cache", maxBytes: 1 << 20).write(Self.entry(1), for: Self.key(1))
        let store = DiskStore(directory: directory.path + "/cache", maxBytes: 1 << 20)
        let path = store.path(for: Self.key(1))
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        // On a thread of its own: a lookup that waited in `open` would hold it until a writer came.
        let found = Locked<CacheEntry??>(nil)
        Thread { found.withLock { $0 = .some(store.read(Self.key(1))) } }.start()
        let answered = await Self.eventually { found.value != nil }
        if !answered {
            // Release the waiting open, so the test ends (failed) instead of leaving a thread blocked.
            let writer = open(path, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        }
        #expect(answered)
        #expect(found.value == .some(nil))
    }

    @Test func aCorruptedEntryFoundAtStartIsRemovedOnRead() throws {
        let directory = TemporaryDirectory()
        DiskStore(directory: directory.path, maxBytes: 1 << 20).write(Self.entry(1), for: Self.key(1))
        let path = DiskStore(directory: directory.path, maxBytes: 1 << 20).path(for: Self.key(1))
        #expect(truncate(path, 60) == 0)
        let reopened = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(reopened.read(Self.key(1)) == nil)
        #expect(directory.files.isEmpty)
    }

    /// Seven entries fill the bound: the sixth leaves it under `evictionStart` (95 %), the seventh passes it and
    /// evicts down to `evictionTarget` (85 %): two entries.
    static let entriesInBound = 7

    /// A store bounded at `entriesInBound` entries of 100 bytes holding pages 1…6, written in that order, and the size
    /// of one entry's file.
    static func sixEntriesInABoundOfSeven(in directory: TemporaryDirectory) -> (store: DiskStore, size: Int) {
        let size = fileSize(bodyBytes: 100)
        let store = DiskStore(directory: directory.path, maxBytes: size * entriesInBound)
        for page in 1...6 { store.write(entry(page), for: key(page)) }
        return (store, size)
    }

    @Test func evictsLeastRecentlyUsedByBytes() async {
        let directory = TemporaryDirectory()
        let store = Self.sixEntriesInABoundOfSeven(in: directory).store
        #expect(store.entryCount == 6)
        _ = store.read(Self.key(1))  // 1 is now more recent than 2 and 3
        // Past 95 % of the bound: eviction goes down to 85 % of it, least recently used first (2, then 3).
        store.write(Self.entry(7), for: Self.key(7))
        await store.waitForEvictions()
        #expect(store.totalBytes <= store.evictionTarget)
        #expect(store.contains(Self.key(1)))
        #expect(!store.contains(Self.key(2)))
        #expect(!store.contains(Self.key(3)))
        #expect(store.contains(Self.key(7)))
        #expect(store.read(Self.key(2)) == nil)
        #expect(directory.files.count == store.entryCount)
    }

    @Test("a use from memory alone (the socket loop's lookup) counts in the eviction order like any other")
    func aLookupInMemoryIsAUse() async {
        let directory = TemporaryDirectory()
        let store = Self.sixEntriesInABoundOfSeven(in: directory).store
        // Read in order, each is kept in memory; 1 is the least recently used until its lookup in memory.
        for page in 1...6 { _ = store.read(Self.key(page)) }
        #expect(store.lookupInMemory(Self.key(1)) { _ in true } != nil)
        store.write(Self.entry(7), for: Self.key(7))
        await store.waitForEvictions()
        #expect(store.contains(Self.key(1)))
        #expect(!store.contains(Self.key(2)))
        #expect(!store.contains(Self.key(3)))
    }

    @Test("a use from memory alone never writes the file's time (the socket loop's thread must not wait for the inode)")
    func aLookupInMemoryDoesNotTouch() throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        store.write(Self.entry(1), for: Self.key(1))
        _ = store.read(Self.key(1))
        let path = store.path(for: Self.key(1))
        var old = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 1_000, tv_nsec: 0)]
        try #require(utimensat(AT_FDCWD, path, &old, 0) == 0)
        for _ in 0..<200 { #expect(store.lookupInMemory(Self.key(1)) { _ in true } != nil) }
        let used: Int64 = try #require(CacheFileSystem.fileInfo(path)?.used)
        #expect(used == 1_000_000_000_000)
    }

    @Test("an eviction over more records than it looks at in one hold of the lock still takes the least recently used, in order")
    func evictionInBatchesKeepsTheOrder() async {
        let directory = TemporaryDirectory()
        let size = Self.fileSize(bodyBytes: 100)
        // 200 entries fill 94 % of the bound; the writes past 95 % evict down to 85 %: ~20 victims, five batches of 4.
        let count = 200
        let store = DiskStore(directory: directory.path, maxBytes: size * count * 100 / 94, evictionBatch: 4)
        for page in 1...count { store.write(Self.entry(page), for: Self.key(page)) }
        #expect(store.entryCount == count)
        for page in 1...10 { _ = store.read(Self.key(page)) }
        var next = count + 1
        /// Writes new entries until one eviction has run (a write that leaves the total lower than it found it); the
        /// pages from 11 to `count` still held.
        func writeUntilEvicted() async -> [Int] {
            var evicted = false
            while !evicted {
                let before = store.totalBytes
                store.write(Self.entry(next), for: Self.key(next))
                next += 1
                await store.waitForEvictions()
                evicted = store.totalBytes < before
            }
            return (11...count).filter { store.contains(Self.key($0)) }
        }
        let first = await writeUntilEvicted()
        #expect(store.totalBytes <= store.evictionTarget)
        let evicted = count - 10 - first.count
        #expect(evicted > 2 * store.evictionBatch)
        // The oldest went, in order; the ten used since were spared.
        #expect(first == Array((11 + evicted)..<(count + 1)))
        #expect((1...10).allSatisfy { store.contains(Self.key($0)) })
        // The records the eviction looked at and kept went back as the oldest: the next eviction starts where it stopped.
        let second = await writeUntilEvicted()
        #expect(second.count < first.count && !second.isEmpty)
        #expect(second == Array((count - second.count + 1)..<(count + 1)))
        #expect((1...10).allSatisfy { store.contains(Self.key($0)) })
        #expect(directory.files.count == store.entryCount)
    }

    @Test("past the in-memory bound the least recently used copies go, not all: a hot entry stays through a larger walk")
    func memoryCopiesEvictLeastRecentlyUsed() {
        let directory = TemporaryDirectory()
        let bodyBytes = 1_000
        let bound = bodyBytes * 8
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20, memoryLimit: bound)
        store.write(Self.entry(0, bodyBytes: bodyBytes), for: Self.key(0))
        _ = store.lookup(Self.key(0), keepsFirstRead: true)
        #expect(store.holdsInMemory(Self.key(0)))
        let reads = store.fileReadCount
        // A cold walk of 40 entries (five times the bound), the hot entry used every third page meanwhile.
        for page in 1...40 {
            store.write(Self.entry(page, bodyBytes: bodyBytes), for: Self.key(page))
            _ = store.lookup(Self.key(page), keepsFirstRead: true)
            #expect(store.memoryByteCount <= bound)
            if page % 3 == 0 {
                #expect(store.holdsInMemory(Self.key(0)))
                _ = store.lookup(Self.key(0), keepsFirstRead: true)
            }
        }
        #expect(store.holdsInMemory(Self.key(0)))
        // The walk's files were read once each (written, then read into memory); the hot entry never again.
        #expect(store.fileReadCount - reads == 40)
        // The newest copies are the ones kept; the oldest of the walk went first.
        #expect(store.holdsInMemory(Self.key(40)))
        #expect(!store.holdsInMemory(Self.key(1)))
    }

    @Test("a copy that needs more room than one batch of smaller copies frees is kept from a later read, never past the bound")
    func aLargeCopyMakesRoomABatchAtATime() {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20, memoryLimit: 10 * 100, evictionBatch: 4)
        for page in 1...10 {
            store.write(Self.entry(page, bodyBytes: 100), for: Self.key(page))
            _ = store.lookup(Self.key(page), keepsFirstRead: true)
        }
        #expect((1...10).allSatisfy { store.holdsInMemory(Self.key($0)) })
        store.write(Self.entry(11, bodyBytes: 900), for: Self.key(11))
        // It needs 9 of the 10 copies gone: 4 go at its first read (not kept), 4 more at its second, then it is kept.
        _ = store.lookup(Self.key(11), keepsFirstRead: true)
        #expect(!store.holdsInMemory(Self.key(11)) && !store.holdsInMemory(Self.key(4)) && store.holdsInMemory(Self.key(5)))
        _ = store.lookup(Self.key(11), keepsFirstRead: true)
        #expect(!store.holdsInMemory(Self.key(11)) && store.holdsInMemory(Self.key(9)))
        _ = store.lookup(Self.key(11), keepsFirstRead: true)
        #expect(store.holdsInMemory(Self.key(11)))
        #expect(store.memoryByteCount <= 10 * 100)
    }

    @Test("a write that finds no room evicts first, then is stored; the entries never pass the bound")
    func aWriteWithNoRoomEvictsBeforeItIsPlaced() async {
        let directory = TemporaryDirectory()
        let (store, size) = Self.sixEntriesInABoundOfSeven(in: directory)
        // Three entries' worth in one: it does not fit in the room left, so the writer evicts before its rename.
        let big = Self.entry(8, bodyBytes: size * 3 - (size - 100))
        #expect(store.write(big, for: Self.key(8)) != nil)
        await store.waitForEvictions()
        #expect(store.read(Self.key(8)) == big)
        #expect(store.totalBytes <= store.maxBytes)
        #expect(SharedCacheDirectoryTests.entryBytes(directory) == store.totalBytes)
        #expect(!store.contains(Self.key(1)))
    }

    @Test("lookups and writes go on while an eviction runs: no lock they take is held while the victims are removed")
    func lookupsProceedDuringEviction() async {
        let directory = TemporaryDirectory()
        let size = Self.fileSize(bodyBytes: 1000)
        let small = Self.entry(9, bodyBytes: 1)
        // Room for the small entry beside seven large ones; the seventh passes 95 % of the bound and evicts one.
        let chosen = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        let victims = Locked<[CacheKey]>([])
        let store = DiskStore(directory: directory.path, maxBytes: size * 7 + 300) { _ in } onEvicting: { keys in
            victims.withLock { $0 = keys }
            chosen.signal()
            // Held here, mid-eviction, until the test has looked entries up.
            _ = resume.wait(timeout: .now() + .seconds(90))
        }
        for page in 1...6 { store.write(Self.entry(page, bodyBytes: 1000), for: Self.key(page)) }
        _ = store.read(Self.key(1))
        let written = DispatchSemaphore(value: 0)
        // A thread of its own: the write blocks in the eviction it starts until the test resumes it.
        Thread.detachNewThread {
            store.write(Self.entry(7, bodyBytes: 1000), for: Self.key(7))
            written.signal()
        }
        #expect(await chosen.isSignalled(within: .seconds(30)))
        #expect(victims.value == [Self.key(2)])
        // With the eviction stopped between choosing and removing, a lookup on this thread is answered...
        #expect(store.read(Self.key(1)) == Self.entry(1, bodyBytes: 1000))
        #expect(store.contains(Self.key(2)))
        // ...and so is a write that fits in the room left (a small one), which does not start a second eviction.
        #expect(await SharedCacheDirectoryTests.finishesWhileHeld { store.write(small, for: Self.key(9)) != nil } == true)
        #expect(victims.value == [Self.key(2)])
        #expect(SharedCacheDirectoryTests.entryBytes(directory) <= store.maxBytes)
        resume.signal()
        #expect(await written.isSignalled(within: .seconds(30)))
        await store.waitForEvictions()
        #expect(!store.contains(Self.key(2)))
        #expect(store.read(Self.key(2)) == nil)
        #expect(store.contains(Self.key(3)))
        #expect(store.read(Self.key(7)) == Self.entry(7, bodyBytes: 1000))
        #expect(store.read(Self.key(9)) == small)
    }

    @Test("a rewrite swaps the new version in (the old one is never missing) and the total stays exact")
    func aRewriteSwapsTheEntryAndCountsExactly() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/entry"
        // Nothing there yet: a plain rename.
        try CacheFileSystem.writeTemporary(Array("first".utf8), path + ".new")
        let first = try CacheFileSystem.replace(path, with: path + ".new", aside: path + ".old")
        #expect(first.replaced == 0 && first.leftAt == nil)
        // A version there: swapped, the old one's exact size given back, its bytes where it says.
        try CacheFileSystem.writeTemporary(Array("second!".utf8), path + ".new")
        let second = try CacheFileSystem.replace(path, with: path + ".new", aside: path + ".old")
        #expect(second.replaced == 5)
        let leftAt = try #require(second.leftAt)
        #expect(try String(contentsOfFile: leftAt, encoding: .utf8) == "first")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second!")

        let store = DiskStore(directory: directory.path + "/cache", maxBytes: 1 << 20)
        for bodyBytes in [100, 300, 50, 200] { store.write(Self.entry(1, bodyBytes: bodyBytes), for: Self.key(1)) }
        let total = try String(contentsOfFile: directory.path + "/cache/" + CacheDirectoryLedger.lockName, encoding: .utf8)
        #expect(total == "\(Self.fileSize(bodyBytes: 200))\n")
        #expect(store.read(Self.key(1)) == Self.entry(1, bodyBytes: 200))
        #expect(directory.files.filter { $0.hasPrefix("cache/") && !$0.hasPrefix("cache/.") }.count == 1, "no version left aside")
    }

    @Test func anEntryLargerThanTheBoundIsNotStored() {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 200)
        store.write(Self.entry(1, bodyBytes: 500), for: Self.key(1))
        #expect(store.read(Self.key(1)) == nil)
        #expect(directory.files.isEmpty)
    }

    @Test func indexAndLRUOrderSurviveAReopen() async throws {
        let directory = TemporaryDirectory()
        let (store, size) = Self.sixEntriesInABoundOfSeven(in: directory)
        // Make the file times unambiguous: page 2 oldest, then 3, then 1, then 4-6 (now).
        for (page, time) in [(2, 1_000), (3, 2_000), (1, 3_000)] {
            var times = [timespec(tv_sec: time, tv_nsec: 0), timespec(tv_sec: time, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, store.path(for: Self.key(page)), &times, 0) == 0)
        }
        let reopened = DiskStore(directory: directory.path, maxBytes: size * Self.entriesInBound)
        #expect(reopened.entryCount == 6)
        #expect(reopened.totalBytes == size * 6)
        #expect(reopened.read(Self.key(3)) == Self.entry(3))
        // Past 95 % of the bound: eviction goes down to 85 %, oldest first: 2 (oldest file), then 1; 3 was just read.
        reopened.write(Self.entry(7), for: Self.key(7))
        await reopened.waitForEvictions()
        #expect(!reopened.contains(Self.key(2)))
        #expect(!reopened.contains(Self.key(1)))
        #expect(reopened.contains(Self.key(3)))
        #expect(reopened.contains(Self.key(7)))
    }

    /// Right after the start, in the background (attack15 M2: `StartEvictionTests`).
    @Test func reopeningWithASmallerBoundEvictsAtOnce() async {
        let directory = TemporaryDirectory()
        let size = Self.fileSize(bodyBytes: 100)
        let store = DiskStore(directory: directory.path, maxBytes: size * 10)
        for page in 1...10 { store.write(Self.entry(page), for: Self.key(page)) }
        let reopened = DiskStore(directory: directory.path, maxBytes: size * 4)
        await reopened.waitForEvictions()
        #expect(reopened.totalBytes <= size * 4)
        #expect(directory.files.count == reopened.entryCount)
    }

    @Test func temporaryFilesLeftByACrashAreRemovedAtStartAndOthersKept() throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        store.write(Self.entry(1), for: Self.key(1))
        let key = Self.key(1)
        let leftover = "\(directory.path)/\(key.directoryName)/\(key.hex).tmp-99999-1"
        try Data("half an entry".utf8).write(to: URL(fileURLWithPath: leftover))
        let foreign = "\(directory.path)/notes.txt"
        try Data("not ours".utf8).write(to: URL(fileURLWithPath: foreign))
        _ = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(FileManager.default.fileExists(atPath: foreign))
        #expect(FileManager.default.fileExists(atPath: store.path(for: key)))
    }

    @Test func anUnusableDirectoryDisablesTheStoreWithOneReason() throws {
        let directory = TemporaryDirectory()
        // A regular file where a directory should be: mkdir fails with ENOTDIR even for root.
        let blocker = directory.path + "/file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        let reasons = Locked<[String]>([])
        let store = DiskStore(directory: blocker + "/cache", maxBytes: 1 << 20) { reason in reasons.withLock { $0.append(reason) } }
        #expect(!store.isEnabled)
        let reason = try #require(store.disabledReason)
        #expect(reason.contains(blocker + "/cache"))
        #expect(reason.contains("Not a directory"))
        store.write(Self.entry(1), for: Self.key(1))
        #expect(store.read(Self.key(1)) == nil)
        #expect(reasons.withLock { $0 } == [reason])
    }

    @Test func aDirectoryRemovedWhileRunningDisablesTheStoreOnce() throws {
        let directory = TemporaryDirectory()
        let root = directory.path + "/cache"
        let reasons = Locked<[String]>([])
        let store = DiskStore(directory: root, maxBytes: 1 << 20) { reason in reasons.withLock { $0.append(reason) } }
        #expect(store.isEnabled)
        try FileManager.default.removeItem(atPath: root)
        try Data("x".utf8).write(to: URL(fileURLWithPath: root))  // now a file: nothing can be made under it
        store.write(Self.entry(1), for: Self.key(1))
        store.write(Self.entry(2), for: Self.key(2))
        #expect(!store.isEnabled)
        #expect(reasons.withLock { $0.count } == 1)
    }

    /// Polls `condition` every millisecond for at most 10 s (a store tries its directory again on its own queue),
    /// suspended between looks (no thread of the cooperative pool waits).
    private static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    @Test("a store disabled while running serves again once its directory works again, and says so once")
    func aDisabledStoreIsEnabledAgainWhenItsDirectoryWorks() async throws {
        let directory = TemporaryDirectory()
        let root = directory.path + "/cache"
        let enabled = Locked(0)
        let store = DiskStore(directory: root, maxBytes: 1 << 20, onEnable: { enabled.withLock { $0 += 1 } }, retryInterval: .milliseconds(5))
        store.write(Self.entry(1), for: Self.key(1))
        let changes = store.changeCount
        try FileManager.default.removeItem(atPath: root)
        try Data("x".utf8).write(to: URL(fileURLWithPath: root))  // a file: nothing can be made under it
        store.write(Self.entry(2), for: Self.key(2))
        #expect(!store.isEnabled)
        // Tried again and again while it still fails: still disabled.
        await store.waitForEvictions()
        #expect(!store.isEnabled && enabled.withLock { $0 } == 0)
        try FileManager.default.removeItem(atPath: root)
        #expect(await Self.eventually { store.isEnabled })
        #expect(enabled.withLock { $0 } == 1)
        #expect(store.changeCount > changes)
        #expect(store.write(Self.entry(3), for: Self.key(3)) != nil)
        #expect(store.read(Self.key(3)) != nil)
        // The entry whose file went with the directory is a miss, not an error.
        #expect(store.read(Self.key(1)) == nil)
    }

    @Test("a store enabled again after an outage serves no copy in memory, and no stamp of before is current (review15 R1)")
    func aStoreEnabledAgainForgetsWhatItSawBefore() async throws {
        let directory = TemporaryDirectory()
        let root = directory.path + "/cache"
        let store = DiskStore(directory: root, maxBytes: 1 << 20, retryInterval: .milliseconds(5))
        store.write(Self.entry(1), for: Self.key(1))
        let stamp = try #require(store.lookup(Self.key(1))?.stamp)
        #expect(store.memoryByteCount > 0, "the entry is kept in memory once seen")
        // The directory goes (wiped, as an operator clears bad cached data), the store is disabled, then it works again.
        try FileManager.default.removeItem(atPath: root)
        try Data("x".utf8).write(to: URL(fileURLWithPath: root))
        store.write(Self.entry(2), for: Self.key(2))
        #expect(!store.isEnabled)
        try FileManager.default.removeItem(atPath: root)
        #expect(await Self.eventually { store.isEnabled })
        #expect(store.memoryByteCount == 0)
        #expect(store.changeCount(ifCurrent: [stamp]) == nil, "an answer built on the page before is not current")
        #expect(store.read(Self.key(1)) == nil, "its file went with the directory: a miss, not the copy in memory")
    }

    @Test("a directory removed and made again under a running store: what it knew of the old one is forgotten (review15 R1)")
    func aDirectoryReplacedUnderARunningStoreForgetsItsEntries() throws {
        let directory = TemporaryDirectory()
        let root = directory.path + "/cache"
        let store = DiskStore(directory: root, maxBytes: 1 << 20)
        store.write(Self.entry(1), for: Self.key(1))
        let stamp = try #require(store.lookup(Self.key(1))?.stamp)
        try FileManager.default.removeItem(atPath: root)  // `rm -rf` and made again at once: never unusable
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        store.write(Self.entry(2), for: Self.key(2))  // a write looks at the directory it holds
        #expect(store.isEnabled)
        #expect(store.changeCount(ifCurrent: [stamp]) == nil)
        #expect(store.read(Self.key(1)) == nil)
        #expect(store.read(Self.key(2)) == Self.entry(2))
    }

    @Test("a store disabled at its start tries too: once its directory works it takes the directory's locks, builds its index there and serves")
    func aStoreDisabledAtItsStartIsEnabledWhenItsDirectoryWorks() async throws {
        let directory = TemporaryDirectory()
        let root = directory.path + "/cache"
        // Entries a process that has ended left in a directory, out of reach for now (a volume not mounted yet).
        let aside = directory.path + "/aside"
        let size = {
            let earlier = DiskStore(directory: aside, maxBytes: 1 << 20)
            for page in 1...3 { earlier.write(Self.entry(page), for: Self.key(page)) }
            return earlier.totalBytes
        }()
        try Data("x".utf8).write(to: URL(fileURLWithPath: root))  // a file: nothing can be made under it
        let (enabled, disabled) = (Locked(0), Locked<[String]>([]))
        let store = DiskStore(
            directory: root, maxBytes: 1 << 20, onDisable: { reason in disabled.withLock { $0.append(reason) } },
            onEnable: { enabled.withLock { $0 += 1 } }, retryInterval: .milliseconds(5))
        #expect(!store.isEnabled && store.instance == nil && store.entryCount == 0)
        #expect(store.write(Self.entry(4), for: Self.key(4)) == nil)
        // Tried again and again while it still fails: still disabled, told once.
        await store.waitForEvictions()
        #expect(!store.isEnabled && enabled.withLock { $0 } == 0)
        // The directory takes the file's place in one step (names exchanged, as a mount does). Removing the file and
        // then moving the directory in raced the store's retry, which makes the directory when it finds none there.
        try #require(pageproxy_rename_exchange(aside, root) == 0)
        #expect(await Self.eventually { store.isEnabled })
        #expect(enabled.withLock { $0 } == 1 && disabled.withLock { $0.count } == 1)
        // The index is the directory's, as a start would have built it: the entries there are hits, and counted.
        #expect(store.entryCount == 3 && store.totalBytes == size)
        #expect(store.read(Self.key(2)) == Self.entry(2))
        // The directory's instance file is taken, and locked: another process sees this one alive.
        let instance = try #require(store.instance)
        #expect(FileManager.default.fileExists(atPath: root + "/" + CacheDirectoryLedger.instancePrefix + instance))
        let other = try CacheDirectoryLedger(directory: root)
        #expect(other.isAlive(instance: instance))
        #expect(store.write(Self.entry(4), for: Self.key(4)) != nil)
        #expect(store.read(Self.key(4)) == Self.entry(4))
    }

    @Test func readOnlyAndForbiddenDirectoriesDisableAndAFullOneDoesNot() {
        for code in [EROFS, EACCES, ENOENT] {
            #expect(CacheFileSystem.Failure(call: "write", path: "/x", errno: code).disablesCache)
        }
        for code in [ENOSPC, EDQUOT] {
            let failure = CacheFileSystem.Failure(call: "write", path: "/x", errno: code)
            #expect(!failure.disablesCache && failure.meansNoSpace)
        }
        #expect(!CacheFileSystem.Failure(call: "write", path: "/x", errno: EIO).disablesCache)
    }

    @Test("a full volume disables nothing: the write evicts the oldest entries and tries again; told once an episode")
    func aFullVolumeEvictsAndTheStoreGoesOn() throws {
        let directory = TemporaryDirectory()
        let full = Locked(0)  // how many writes still find the volume full
        let told = Locked<[String]>([])
        let size = Self.fileSize(bodyBytes: 100)
        let store = DiskStore(
            directory: directory.path, maxBytes: size * 100, onVolumeFull: { reason, _ in told.withLock { $0.append(reason) } },
            failWriting: { _ in full.withLock { left in left > 0 ? { left -= 1; return ENOSPC }() : nil } })
        for page in 1...40 { store.write(Self.entry(page), for: Self.key(page)) }
        // One failure: the write evicts (at least a twentieth of what is stored, the oldest first), then succeeds.
        full.withLock { $0 = 1 }
        #expect(store.write(Self.entry(41), for: Self.key(41)) != nil)
        #expect(store.isEnabled)
        #expect(!store.contains(Self.key(1)) && !store.contains(Self.key(2)))
        #expect(store.contains(Self.key(40)) && store.read(Self.key(41)) != nil)
        #expect(told.withLock { $0.count } == 1)
        #expect(told.withLock { $0.first?.contains("No space left on device") } == true)
        // Still full after making room: not stored, the old version gone, the store still enabled; told once for both.
        store.write(Self.entry(42), for: Self.key(42))
        full.withLock { $0 = 2 }
        #expect(store.write(Self.entry(420), for: Self.key(42)) == nil)
        #expect(store.read(Self.key(42)) == nil)
        #expect(store.isEnabled)
        #expect(store.writesWithoutSpace == 3)
        // Space again: writes go on.
        #expect(store.write(Self.entry(43), for: Self.key(43)) != nil)
        full.withLock { $0 = 1 }
        #expect(store.write(Self.entry(44), for: Self.key(44)) != nil)
        #expect(told.withLock { $0.count } == 3)
    }
}

import Foundation
import Glibc
import Testing

@testable import PageProxyCore

/// Reading entries back from their files (issue 13, read-back after a restart): the body read into an array of its
/// own, the first hit after a restart refreshing the file's time through its descriptor, torn files still misses.
@Suite struct EntryReadBackTests {
    private static func write(_ bytes: [UInt8], in directory: TemporaryDirectory) -> String {
        let path = directory.path + "/file"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// The file's access time (what PageProxy's touch sets), in seconds.
    private static func modified(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        return info.st_atim.tv_sec
    }

    @Test(arguments: [0, 1, 100, 4095, 4096, 4097, 9000, 10_000])
    func aFileIsCutWhereItsHeadEnds(_ cut: Int) throws {
        let directory = TemporaryDirectory()
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let path = Self.write(bytes, in: directory)
        var shown = 0
        let file = try #require(try CacheFileSystem.read(path) { first in
            shown = first.count
            return cut
        })
        #expect(shown == min(bytes.count, CacheFileSystem.firstReadBytes))
        #expect(file.head == Array(bytes[..<cut]))
        #expect(file.tail == Array(bytes[cut...]))
    }

    @Test("a file whose head is as long as guessed is read with one call: the head shown is the guessed one")
    func aRightGuessShowsTheGuessedHead() throws {
        let shown = try Self.readCut(at: 1_234, guessing: 1_234)
        #expect(shown == [1_234])
    }

    @Test("a wrong guess of the head's length inside the file is cut where the head really ends, from the one read",
        arguments: [1_000, 1_499, 1_501, 4_000, 9_999])
    func aWrongGuessIsCutFromTheOneRead(_ guess: Int) throws {
        #expect(try Self.readCut(at: 1_500, guessing: guess) == [guess])
    }

    @Test("a guess of the head's length past the file reads the file as without a guess", arguments: [10_000, 20_000])
    func aGuessPastTheFileReadsAsWithout(_ guess: Int) throws {
        let shown = try Self.readCut(at: 1_500, guessing: guess)
        #expect(shown.last == CacheFileSystem.firstReadBytes)
    }

    /// Reads a 10,000-byte file whose head is `cut` bytes long, guessing `guess`; checks the two parts and returns
    /// how many bytes `headLength` was shown each time it was asked.
    private static func readCut(at cut: Int, guessing guess: Int) throws -> [Int] {
        let directory = TemporaryDirectory()
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let path = write(bytes, in: directory)
        var shown: [Int] = []
        let file = try #require(try CacheFileSystem.read(path, headLength: { first in
            shown.append(first.count)
            return cut
        }, guessedHeadLength: guess))
        #expect(file.head == Array(bytes[..<cut]))
        #expect(file.tail == Array(bytes[cut...]))
        return shown
    }

    @Test("entries whose heads differ in length read back after a restart in any order, each the entry written")
    func entriesOfDifferentHeadLengthsReadBack() throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        // Pages 8 and 9 have a one-digit ETag, 10 to 12 a two-digit one: heads of two lengths.
        for page in 8...12 { store.write(DiskStoreTests.entry(page, bodyBytes: 6000), for: DiskStoreTests.key(page)) }
        let restarted = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        for page in [8, 10, 9, 11, 12, 8] {
            #expect(restarted.lookup(DiskStoreTests.key(page), keepsFirstRead: false)?.entry == DiskStoreTests.entry(page, bodyBytes: 6000))
        }
    }

    @Test func aHeadThatCannotBeToldIsTheWholeFileAndAMissingFileIsNil() throws {
        let directory = TemporaryDirectory()
        let path = Self.write(Array("short".utf8), in: directory)
        let file = try #require(try CacheFileSystem.read(path, headLength: CacheEntryFormat.headLength(of:)))
        #expect(file.head == Array("short".utf8))
        #expect(file.tail.isEmpty)
        #expect(try CacheFileSystem.read(directory.path + "/missing", headLength: { _ in 0 }) == nil)
    }

    @Test("an entry read in two parts keeps its body array as read, and is the entry that was written")
    func theBodyIsKeptAsRead() throws {
        let key = DiskStoreTests.key(1)
        let entry = DiskStoreTests.entry(1, bodyBytes: 20_000)
        let bytes = CacheEntryFormat.encode(entry, key: key)
        let cut = try #require(bytes.withUnsafeBytes(CacheEntryFormat.headLength(of:)))
        let body = Array(bytes[cut...])
        let decoded = try CacheEntryFormat.decode(head: Array(bytes[..<cut]), body: body, key: key)
        #expect(decoded == entry)
        #expect(decoded.body.withUnsafeBytes { $0.baseAddress } == body.withUnsafeBytes { $0.baseAddress })
        #expect(throws: CacheEntryFormat.Invalid.lengthMismatch) {
            try CacheEntryFormat.decode(head: Array(bytes[..<cut]), body: body.dropLast(), key: key)
        }
        #expect(throws: CacheEntryFormat.Invalid.lengthMismatch) {
            try CacheEntryFormat.decode(head: Array(bytes[..<(cut - 1)]), body: Array(bytes[(cut - 1)...]), key: key)
        }
    }

    @Test("the first hit after a restart refreshes the entry file's time (the LRU order that survives a restart)")
    func theFirstHitAfterARestartTouchesTheFile() throws {
        #expect(Self.fileTimeAfterAFirstHitAfterARestart(whenSetTo: 1_000) > 1_000_000)
    }

    /// Writes an entry, sets its file's time to `fileTime`, hits it once in a restarted store: the file's time then.
    private static func fileTimeAfterAFirstHitAfterARestart(whenSetTo fileTime: Int) -> Int {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        store.write(DiskStoreTests.entry(1, bodyBytes: 6000), for: DiskStoreTests.key(1))
        let path = store.path(for: DiskStoreTests.key(1))
        var times = [timespec(tv_sec: fileTime, tv_nsec: 0), timespec(tv_sec: fileTime, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let restarted = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(restarted.read(DiskStoreTests.key(1)) == DiskStoreTests.entry(1, bodyBytes: 6000))
        return modified(path)
    }

    @Test("the first hit after a restart leaves a file time set less than a minute ago as it is (no inode write)")
    func aRecentFileTimeIsNotRefreshed() throws {
        let recent = time(nil) - 30
        #expect(Self.fileTimeAfterAFirstHitAfterARestart(whenSetTo: recent) == recent)
    }

    @Test("a read that refreshes a file's time refreshes one set a minute ago or more, or ahead of the clock",
        arguments: [-CacheFileSystem.touchResolution - 5, 3_600])
    func anOldOrFutureFileTimeIsRefreshed(_ offset: Int) throws {
        let directory = TemporaryDirectory()
        let path = Self.write(Array(repeating: 7, count: 6000), in: directory)
        let set = time(nil) + offset
        var times = [timespec(tv_sec: set, tv_nsec: 0), timespec(tv_sec: set, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        _ = try #require(try CacheFileSystem.read(path, headLength: { _ in 100 }, touch: true))
        #expect(Self.modified(path) != set)
        #expect(abs(Self.modified(path) - time(nil)) < 5)
    }

    @Test("reading an entry leaves its access time alone (no inode write per read; the LRU time is the modification time)")
    func aReadDoesNotWriteTheAccessTime() throws {
        let directory = TemporaryDirectory()
        let path = Self.write(Array(repeating: 7, count: 6000), in: directory)
        // An access time older than the modification time: `relatime` would refresh it on the next read.
        var times = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 2_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        _ = try #require(try CacheFileSystem.read(path, headLength: { _ in 100 }))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(info.st_atim.tv_sec == 1_000)
        #expect(info.st_mtim.tv_sec == 2_000)
    }

    @Test(arguments: [27, 28, 500, 4096, 6000])
    func anEntryTornPastItsHeadIsAMissAfterARestart(_ length: Int) throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        store.write(DiskStoreTests.entry(1, bodyBytes: 6000), for: DiskStoreTests.key(1))
        let path = store.path(for: DiskStoreTests.key(1))
        #expect(truncate(path, off_t(length)) == 0)
        let restarted = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(restarted.read(DiskStoreTests.key(1)) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(restarted.totalBytes == 0)
    }

    /// A store over a directory holding entry 1 (6,000 body bytes) written by another store: a restart.
    private static func restarted(in directory: TemporaryDirectory, heldFiles: HeldEntryFileBudget = .shared) -> DiskStore {
        DiskStore(directory: directory.path, maxBytes: 1 << 20).write(DiskStoreTests.entry(1, bodyBytes: 6000), for: DiskStoreTests.key(1))
        return DiskStore(directory: directory.path, maxBytes: 1 << 20, heldFiles: heldFiles)
    }

    @Test("after a restart an entry is kept in memory from its second hit, not its first; one written is kept at once")
    func anEntryIsKeptInMemoryOnceSeen() throws {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory)
        let key = DiskStoreTests.key(1)
        #expect(store.read(key) == DiskStoreTests.entry(1, bodyBytes: 6000))
        #expect(!store.holdsInMemory(key), "read once since the restart: not copied")
        #expect(store.read(key) == DiskStoreTests.entry(1, bodyBytes: 6000))
        #expect(store.holdsInMemory(key))
        // Served from memory now: the file is not read again.
        #expect(unlink(store.path(for: key)) == 0)
        #expect(store.read(key) == DiskStoreTests.entry(1, bodyBytes: 6000))

        store.write(DiskStoreTests.entry(2), for: DiskStoreTests.key(2))
        #expect(store.read(DiskStoreTests.key(2)) == DiskStoreTests.entry(2))
        #expect(store.holdsInMemory(DiskStoreTests.key(2)), "written by this process: kept from its first hit")
    }

    /// Issue 13, fifth pass: a merged answer holds the entries it reads until it is sent, so keeping them costs nothing
    /// more, and the next request after a restart need not read every file again.
    /// With no entry file to send from (the descriptors' budget is spent).
    @Test("a lookup that keeps its first read keeps the entry in memory from its first hit after a restart, inline or not")
    func aLookupThatKeepsItsFirstReadKeepsTheEntry() throws {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory, heldFiles: HeldEntryFileBudget(capacity: 0))
        let key = DiskStoreTests.key(1)
        guard case .found(let entry, _) = store.lookupInline(key, keepsFirstRead: true) else {
            Issue.record("not found")
            return
        }
        #expect(entry == DiskStoreTests.entry(1, bodyBytes: 6000))
        #expect(store.holdsInMemory(key), "kept from the first hit")
        #expect(unlink(store.path(for: key)) == 0)
        #expect(store.read(key) == DiskStoreTests.entry(1, bodyBytes: 6000), "served from memory, the file gone")

        let otherDirectory = TemporaryDirectory()
        let other = Self.restarted(in: otherDirectory, heldFiles: HeldEntryFileBudget(capacity: 0))
        #expect(other.lookup(key, keepsFirstRead: true)?.entry == DiskStoreTests.entry(1, bodyBytes: 6000))
        #expect(other.holdsInMemory(key))
    }

    @Test("a torn entry hit twice after a restart is a miss both times, never kept")
    func aTornEntryIsNeverKept() throws {
        let directory = TemporaryDirectory()
        let store = Self.restarted(in: directory)
        let key = DiskStoreTests.key(1)
        #expect(truncate(store.path(for: key), 3000) == 0)
        #expect(store.read(key) == nil)
        #expect(store.read(key) == nil)
        #expect(!store.holdsInMemory(key))
    }
}

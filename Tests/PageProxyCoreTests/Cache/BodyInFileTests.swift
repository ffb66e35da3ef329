import Foundation
import Glibc
import Testing

@testable import PageProxyCore

/// Issue 13, fourteenth pass: a merged answer's first hit of an entry after a restart (`leavesBodyFor`, with held files)
/// is verified through a reused buffer and its body left in the held file; every other lookup, and the next hit, get the
/// body in memory; a corrupt body is still a miss at the lookup; a file written in place after it was verified is found
/// by the sender and removed.
@Suite struct BodyInFileTests {
    /// A page of 300 compact items under `data`, ~20 KB (a read-back page's size), and a scan of it for `paths`.
    static let paths = ScanPaths(itemsPath: JSONPath("data")!, valuePaths: [JSONPath("total")!])
    static let body: [UInt8] = {
        let items = (1...300).map { #"{"id":\#($0),"name":"item-\#($0)-abcdefghijklmnopqrstuvwxyz0123456789"}"# }
        return Array(#"{"data":[\#(items.joined(separator: ","))],"total":300}"#.utf8)
    }()

    static func entry(_ page: Int, scanFor paths: ScanPaths = paths) -> CacheEntry {
        CacheEntry(
            status: .ok, headers: HTTPHeaders([("ETag", "\"\(page)\"")]), body: body, storedAt: Date(timeIntervalSince1970: 1_000),
            freshUntil: Date(timeIntervalSince1970: 2_000), scan: StoredScan(try! paths.scan(body), for: paths, body: body))
    }

    /// A store over a directory another store wrote `count` entries into (a restart), holding files within `budget`.
    static func restarted(count: Int = 1, budget: HeldEntryFileBudget = HeldEntryFileBudget(capacity: 16)) -> (DiskStore, TemporaryDirectory) {
        let directory = TemporaryDirectory()
        let writer = DiskStore(directory: directory.path, maxBytes: 1 << 24)
        for index in 1...count { writer.write(entry(index), for: DiskStoreTests.key(index)) }
        return (DiskStore(directory: directory.path, maxBytes: 1 << 24, heldFiles: budget), directory)
    }

    /// Sets `path`'s times some seconds back (recent enough that a read does not refresh them), as an entry's are when
    /// it is read back: a write now then changes them, whatever the clock's grain.
    static func dateBack(_ path: String) {
        var past = [timespec(tv_sec: time(nil) - 30, tv_nsec: 0), timespec(tv_sec: time(nil) - 30, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &past, 0) == 0)
    }

    /// Writes `byte` at `offset` of `path`, in place.
    static func write(_ byte: String, at offset: Int, of path: String) throws {
        let fd = open(path, O_WRONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(pwrite(fd, byte, 1, off_t(offset)) == 1)
    }

    @Test("a first hit that leaves bodies for its scan gets the entry verified with no body in memory, its file's range the body")
    func theFirstHitLeavesTheBodyInItsFile() throws {
        let (store, directory) = Self.restarted()
        defer { withExtendedLifetime(directory) {} }
        let key = DiskStoreTests.key(1)
        let found = try #require(store.lookup(key, keepsFirstRead: true, leavesBodyFor: Self.paths.signature)?.entry)
        #expect(found.body.isEmpty, "the body is not kept in memory")
        let inFile = try #require(found.bodyInFile)
        #expect(inFile.length == Self.body.count)
        #expect(found.bodyCount == Self.body.count)
        #expect(found.bodyChecksum == XXHash64.hash(Self.body))
        #expect(inFile.file.readBody(0..<inFile.length) == Self.body, "the held file's range is the body, byte for byte")
        #expect(found.scan?.isCommaRun == true, "the comma run is known from the items' places")
        #expect(found.withBodyRead()?.body == Self.body)
        #expect(!store.holdsInMemory(key), "a body left in its file is never a copy in memory")
    }

    @Test("the entry is kept with its held file: the next lookup for the same scan takes it without reading the file; any other reads it whole and keeps a copy, which then serves both")
    func theNextHitTakesTheHeldEntry() throws {
        let budget = HeldEntryFileBudget(capacity: 16)
        let (store, directory) = Self.restarted(budget: budget)
        defer { withExtendedLifetime(directory) {} }
        let key = DiskStoreTests.key(1)
        _ = store.lookup(key, keepsFirstRead: true, leavesBodyFor: Self.paths.signature)
        #expect(store.holdsInFile(key))
        #expect(budget.heldCount == 1, "its descriptor stays held for the next answer")
        let reads = store.fileReadCount
        do {
            let again = try #require(store.lookup(key, keepsFirstRead: true, leavesBodyFor: Self.paths.signature)?.entry)
            #expect(again.bodyInFile != nil && again.body.isEmpty)
        }
        #expect(store.fileReadCount == reads, "no file read, no copy made")
        #expect(!store.holdsInMemory(key))
        // NDJSON (no body left for it): the file read whole, and a copy kept, as before; that copy then serves both.
        #expect(store.lookup(key)?.entry.body == Self.body)
        #expect(store.holdsInMemory(key))
        #expect(store.lookup(key, keepsFirstRead: true, leavesBodyFor: Self.paths.signature)?.entry.body == Self.body)
        // A write of the page lets go of it (and of its descriptor).
        store.write(Self.entry(1), for: key)
        #expect(!store.holdsInFile(key))
        #expect(budget.heldCount == 0)
    }

    @Test("at most half the held-files budget is kept with the store, the least recently used let go first")
    func heldEntriesAreBounded() throws {
        let budget = HeldEntryFileBudget(capacity: 4)
        let (store, directory) = Self.restarted(count: 3, budget: budget)
        defer { withExtendedLifetime(directory) {} }
        for index in 1...3 { _ = store.lookup(DiskStoreTests.key(index), keepsFirstRead: true, leavesBodyFor: Self.paths.signature) }
        #expect(!store.holdsInFile(DiskStoreTests.key(1)))
        #expect(store.holdsInFile(DiskStoreTests.key(2)) && store.holdsInFile(DiskStoreTests.key(3)))
        #expect(budget.heldCount == 2)
    }

    @Test("an entry kept with its file that was written in place since is a miss, and is removed")
    func aHeldEntryWrittenInPlaceIsAMiss() throws {
        let (store, directory) = Self.restarted()
        defer { withExtendedLifetime(directory) {} }
        let key = DiskStoreTests.key(1)
        let path = store.path(for: key)
        Self.dateBack(path)
        _ = store.lookup(key, keepsFirstRead: true, leavesBodyFor: Self.paths.signature)
        #expect(store.holdsInFile(key))
        // The magic's first byte again: the same bytes, other times.
        try Self.write("P", at: 0, of: path)
        #expect(store.lookup(key, keepsFirstRead: true, leavesBodyFor: Self.paths.signature) == nil)
        #expect(!store.holdsInFile(key))
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// `path`'s access time (what PageProxy's touch sets), in seconds.
    static func modified(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_atim.tv_sec : 0
    }

    /// A restarted store's one entry, its file dated back, looked up by a merged answer's first hit: its copy held for
    /// sending (the directory lives as long as it is kept).
    static func heldFirstHit() throws -> (DiskStore, TemporaryDirectory, CacheKey, String, HeldEntryFile) {
        let (store, directory) = restarted()
        let key = DiskStoreTests.key(1)
        let path = store.path(for: key)
        dateBack(path)
        let found = try #require(store.lookup(key, keepsFirstRead: true, leavesBodyFor: paths.signature)?.entry)
        return (store, directory, key, path, try #require(found.bodyInFile?.file))
    }

    /// `file`'s whole body through a sender's staging (`StagedBodyParts`): how many bytes it gave, and whether it stopped.
    static func sent(_ file: HeldEntryFile) -> (count: Int, failed: Bool) {
        var staged = StagedBodyParts([.file(file, 0..<body.count)])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: body.count + 4096, alignment: 64)
        defer { buffer.deallocate() }
        let (count, failure) = staged.fill(buffer)
        return (count, failure != nil)
    }

    @Test("PageProxy's own refresh of an entry file's times (every 64th hit) leaves a copy held for sending whole: its sender finds it unchanged, and the entry stays (review20 F4)")
    func theStoresOwnTouchLeavesAHeldFileWhole() async throws {
        let (store, directory, key, path, file) = try Self.heldFirstHit()
        defer { withExtendedLifetime(directory) {} }
        let dated = Self.modified(path)
        // NDJSON lookups of the same page meanwhile (a copy in memory after the first): one of them refreshes its times.
        for _ in 0..<70 { #expect(store.lookup(key)?.entry.body == Self.body) }
        #expect(Self.modified(path) > dated, "the file's times were refreshed")
        // The refresh sets the access time, which moves the change time (the stamp's): the stamp moved with it.
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(HeldEntryFile.Stamp(info) == file.stamp, "the held copy's stamp moved with them")
        #expect(file.isUnchanged())
        #expect(Self.sent(file) == (Self.body.count, false), "the whole body is sent")
        await store.waitForEvictions()
        #expect(store.contains(key))
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test("a file written in place by another program before PageProxy's own refresh of its times is still found changed by its sender (review20 F4, attack13 L1)")
    func aWriteBeforeTheStoresTouchIsStillFound() async throws {
        let (store, directory, key, path, file) = try Self.heldFirstHit()
        defer { withExtendedLifetime(directory) {} }
        // The same byte written again in place (the body still verifies), then the lookups that refresh the times.
        try Self.write("{", at: file.bodyOffset, of: path)
        for _ in 0..<70 { _ = store.lookup(key) }
        #expect(!file.isUnchanged())
        #expect(Self.sent(file) == (0, true))
    }

    @Test("a read that refreshes a file's times through its descriptor moves the stamps of the file's copies held for sending (review20 F4)")
    func aTouchThroughADescriptorMovesHeldStamps() throws {
        let (store, directory) = Self.restarted()
        defer { withExtendedLifetime(directory) {} }
        let path = store.path(for: DiskStoreTests.key(1))
        // Older than `touchResolution`: a read that may refresh the times does.
        var old = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &old, 0) == 0)
        let budget = HeldEntryFileBudget(capacity: 1)
        let held = try #require(try CacheFileSystem.read(path, headLength: CacheEntryFormat.headLength(of:), holding: budget)?.file)
        #expect(try CacheFileSystem.read(path, headLength: CacheEntryFormat.headLength(of:), touch: true) != nil)
        #expect(Self.modified(path) > time(nil) - 60, "the read refreshed the times")
        #expect(held.isUnchanged())
        #expect(held.readBody(0..<Self.body.count) == Self.body)
    }

    /// flake23: the walk and the read-ahead thread sometimes read one file side by side (`DiskStore.readAhead`'s
    /// `overtakenMargin`). Both look at its times first; when both find a refresh due, the second refreshes from its look
    /// taken before the first's refresh. The move of the held stamps went from that stale look: nothing moved, and the
    /// first's held copy was found changed by its own process (its answer cut short, the good entry removed).
    @Test("two reads of one file that both refresh its times, the second from a look taken before the first's refresh, leave the first's held copy whole")
    func aStaleLookAtAFileStillMovesHeldStamps() throws {
        let (store, directory) = Self.restarted()
        defer { withExtendedLifetime(directory) {} }
        let path = store.path(for: DiskStoreTests.key(1))
        var old = [timespec(tv_sec: time(nil) - 7200, tv_nsec: 0), timespec(tv_sec: time(nil) - 7200, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &old, 0) == 0)
        // The second reader opens the file and looks at its times: a refresh is due.
        let second = open(path, O_RDONLY)
        try #require(second >= 0)
        defer { close(second) }
        var look = stat()
        #expect(fstat(second, &look) == 0)
        // The first reads it, refreshing its times, and holds it for sending.
        let budget = HeldEntryFileBudget(capacity: 1)
        let held = try #require(try CacheFileSystem.read(path, headLength: CacheEntryFormat.headLength(of:), touch: true, holding: budget)?.file)
        #expect(held.isUnchanged())
        // The coarse clock a refresh sets the change time from moves on (a bounded spin, ~4 ms a tick): the second refresh
        // sets other times than the first's.
        var now = timespec()
        for _ in 0..<100_000_000 {
            _ = clock_gettime(CLOCK_REALTIME_COARSE, &now)
            if Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec) > held.stamp.changed { break }
        }
        // The second refreshes them from its look, taken before the first's refresh.
        #expect(HeldFileStamps.shared.touch(second, &look))
        #expect(held.stamp.changed == HeldEntryFile.Stamp(look).changed, "the held copy's stamp moved with the second refresh")
        #expect(held.isUnchanged(), "PageProxy's own refreshes are no write in place")
        #expect(held.readBody(0..<Self.body.count) == Self.body)
    }

    @Test("a file touched by PageProxy between its stamp and its holding is not held (its stamp is no longer the file's): the caller reads it whole")
    func aFileTouchedBeforeItIsHeldIsNotHeld() throws {
        let (store, directory) = Self.restarted()
        defer { withExtendedLifetime(directory) {} }
        let path = store.path(for: DiskStoreTests.key(1))
        Self.dateBack(path)
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        var info = stat()
        #expect(fstat(fd, &info) == 0)
        CacheFileSystem.touch(path)
        let budget = HeldEntryFileBudget(capacity: 1)
        #expect(HeldEntryFile(descriptor: fd, bodyOffset: 0, budget: budget, stamp: .init(info)) == nil)
        #expect(budget.heldCount == 0, "its place given back")
        // Stamped after the touch: held.
        #expect(fstat(fd, &info) == 0)
        #expect(HeldEntryFile(descriptor: fd, bodyOffset: 0, budget: budget, stamp: .init(info)) != nil)
    }

    @Test("a lookup that does not leave bodies, one for another scan, and one with no room for the file get the body in memory")
    func otherLookupsGetTheBody() throws {
        let (store, directory) = Self.restarted(count: 3, budget: HeldEntryFileBudget(capacity: 1))
        defer { withExtendedLifetime(directory) {} }
        do {
            let plain = try #require(store.lookup(DiskStoreTests.key(1), keepsFirstRead: true)?.entry)
            #expect(plain.bodyInFile == nil && plain.body == Self.body)
        }
        let other = ScanPaths(itemsPath: .root, valuePaths: [])
        var another = store.lookup(DiskStoreTests.key(2), keepsFirstRead: true, leavesBodyFor: other.signature)?.entry
        #expect(another?.bodyInFile == nil && another?.body == Self.body)
        #expect(another?.file != nil, "the budget's one place")
        let full = try #require(store.lookup(DiskStoreTests.key(3), keepsFirstRead: true, leavesBodyFor: Self.paths.signature)?.entry)
        #expect(full.bodyInFile == nil && full.body == Self.body, "no file to leave it in: read into memory")
        another = nil
        // Without `keepsFirstRead` (NDJSON) no body is left, whatever is asked.
        let (fresh, freshDirectory) = Self.restarted()
        defer { withExtendedLifetime(freshDirectory) {} }
        #expect(fresh.lookup(DiskStoreTests.key(1), leavesBodyFor: Self.paths.signature)?.entry.body == Self.body)
    }

    @Test("a body changed on disk is still a miss at the lookup (before any head), and the entry is removed")
    func aCorruptBodyIsAMiss() throws {
        let (store, directory) = Self.restarted()
        defer { withExtendedLifetime(directory) {} }
        let key = DiskStoreTests.key(1)
        let path = store.path(for: key)
        let size = try #require(CacheFileSystem.fileInfo(path)?.size)
        // A byte inside the last item's name, far past the first 4 KiB.
        try Self.write("Z", at: size - 40, of: path)
        #expect(store.lookup(key, keepsFirstRead: true, leavesBodyFor: Self.paths.signature) == nil)
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!store.contains(key))
        // A truncated one too.
        let (other, otherDirectory) = Self.restarted()
        defer { withExtendedLifetime(otherDirectory) {} }
        #expect(truncate(other.path(for: key), off_t(size - 10)) == 0)
        #expect(other.lookup(key, keepsFirstRead: true, leavesBodyFor: Self.paths.signature) == nil)
    }

    @Test("entries read ahead with their bodies left in their files count their bodies' length against the read-ahead's bytes (review19 R1: counted as 0, a walk held as many as it had descriptors)")
    func readAheadCountsBodiesLeftInFiles() throws {
        let directory = TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let writer = DiskStore(directory: directory.path, maxBytes: 1 << 24)
        for index in 1...6 { writer.write(Self.entry(index), for: DiskStoreTests.key(index)) }
        // Room for two bodies, not three.
        let store = DiskStore(
            directory: directory.path, maxBytes: 1 << 24, memoryLimit: Self.body.count * 5 / 2, heldFiles: HeldEntryFileBudget(capacity: 16))
        store.readAhead((1...6).map { DiskStoreTests.key($0) }, leavesBodyFor: Self.paths.signature)
        #expect(store.holdsReadAhead(DiskStoreTests.key(1)) && store.holdsReadAhead(DiskStoreTests.key(2)))
        #expect(store.readAheadCount == 2)
        let first = try #require(store.lookup(DiskStoreTests.key(1), keepsFirstRead: true, leavesBodyFor: Self.paths.signature)?.entry)
        #expect(first.bodyInFile != nil, "read ahead with its body left in its file")
    }

    @Test("an entry read ahead with its body left in its file goes only to a lookup that leaves bodies for the same scan")
    func readAheadBodiesGoToTheirOwnWalk() throws {
        let (store, directory) = Self.restarted(count: 2)
        defer { withExtendedLifetime(directory) {} }
        store.readAhead([DiskStoreTests.key(1), DiskStoreTests.key(2)], leavesBodyFor: Self.paths.signature)
        #expect(store.holdsReadAhead(DiskStoreTests.key(1)) && store.holdsReadAhead(DiskStoreTests.key(2)))
        let reads = store.fileReadCount
        let own = try #require(store.lookup(DiskStoreTests.key(1), keepsFirstRead: true, leavesBodyFor: Self.paths.signature)?.entry)
        #expect(own.bodyInFile != nil && own.body.isEmpty)
        #expect(store.fileReadCount == reads, "taken as read ahead")
        let other = ScanPaths(itemsPath: .root, valuePaths: [])
        let another = try #require(store.lookup(DiskStoreTests.key(2), keepsFirstRead: true, leavesBodyFor: other.signature)?.entry)
        #expect(another.bodyInFile == nil && another.body == Self.body, "another walk's lookup reads the file itself")
        #expect(store.fileReadCount == reads + 1)
    }

    @Test("a file written in place after its body was verified is found by the sender: its range is left out, the send stops, and the store removes the entry")
    func aFileWrittenInPlaceStopsTheSend() async throws {
        let (store, directory) = Self.restarted()
        defer { withExtendedLifetime(directory) {} }
        let key = DiskStoreTests.key(1)
        let path = store.path(for: key)
        Self.dateBack(path)
        let found = try #require(store.lookup(key, keepsFirstRead: true, leavesBodyFor: Self.paths.signature)?.entry)
        let file = try #require(found.bodyInFile?.file)
        #expect(file.isUnchanged())
        // The same byte written again in place: the bytes are the same, the file's times are not.
        try Self.write("{", at: file.bodyOffset, of: path)
        #expect(!file.isUnchanged())
        var staged = StagedBodyParts([.bytes(Array("head[".utf8)[...]), .file(file, 8..<400), .bytes(Array("]".utf8)[...])])
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 64)
        defer { buffer.deallocate() }
        let (count, failure) = staged.fill(buffer)
        #expect(count == 5, "only what came before the range")
        #expect(failure != nil)
        // A range longer than a fill is checked before its first fill goes out, not only at its end (review19 R3).
        var longer = StagedBodyParts([.bytes(Array("head[".utf8)[...]), .file(file, 8..<400)])
        let small = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 64)
        defer { small.deallocate() }
        let (first, stopped) = longer.fill(small)
        #expect(first == 5, "none of the range's bytes in a fill that ends inside it")
        #expect(stopped != nil)
        #expect(found.withBodyRead() == nil, "read back, it is refused too")
        await store.waitForEvictions()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!store.contains(key))
    }
}

import Foundation
import Glibc
import Testing

@testable import PageProxyCore

/// Issue 13, thirteenth pass: a merged walk with held files reads an entry's head only on its first hit after a
/// restart; its body stays in the file (`DeferredEntryBody`) and is checked as it is sent. Torn and corrupt heads are
/// misses as before; a body that fails its check is found only by the sender, which has the entry removed.
@Suite struct HeadOnlyReadTests {
    static let paths = ScanPaths(itemsPath: .root, valuePaths: [])
    /// The page's body: a compact array of `count` items of ~100 bytes each (~60 KB), and its scan.
    static func entry(_ page: Int, count: Int = 600) -> CacheEntry {
        let items = (0..<count).map { #"{"id":\#($0),"page":\#(page),"pad":"\#(String(repeating: "p", count: 80))"}"# }
        let body = Array("[\(items.joined(separator: ","))]".utf8)
        return CacheEntry(
            status: .ok, headers: HTTPHeaders([("ETag", "\"\(page)\"")]), body: body, storedAt: Date(timeIntervalSince1970: 1_000),
            freshUntil: Date(timeIntervalSince1970: 2_000), scan: StoredScan(try! paths.scan(body), for: paths, body: body))
    }

    /// A store over a directory another store wrote pages 1…`count` into (a restart), with room for `capacity` files.
    static func restarted(_ directory: TemporaryDirectory, count: Int = 3, capacity: Int = 16) -> (DiskStore, HeldEntryFileBudget) {
        let writer = DiskStore(directory: directory.path, maxBytes: 8 << 20)
        for page in 1...count { writer.write(entry(page), for: DiskStoreTests.key(page)) }
        let budget = HeldEntryFileBudget(capacity: capacity)
        return (DiskStore(directory: directory.path, maxBytes: 8 << 20, heldFiles: budget), budget)
    }

    /// The bytes this thread has read through system calls so far (`rchar`), or nil where the kernel does not say.
    static func bytesReadByThisThread() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("rchar:") })
        else { return nil }
        return Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces))
    }

    /// Flips one byte inside `key`'s body on disk, in place, the file's size unchanged (not something PageProxy does).
    static func flipBodyByte(_ store: DiskStore, _ key: CacheKey, at offsetFromEnd: Int = 500) throws {
        let fd = open(store.path(for: key), O_RDWR)
        try #require(fd >= 0)
        defer { close(fd) }
        var info = stat()
        try #require(fstat(fd, &info) == 0)
        var byte: UInt8 = 0
        let at = off_t(Int(info.st_size) - offsetFromEnd)
        try #require(pread(fd, &byte, 1, at) == 1)
        byte ^= 0x20
        try #require(pwrite(fd, &byte, 1, at) == 1)
    }

    @Test("the first hit of a walk that defers its bodies reads the entry's head, not its body: the body is left in the held file, checked against the head's XXH64")
    func aFirstHitReadsTheHeadOnly() throws {
        let directory = TemporaryDirectory()
        let (store, budget) = Self.restarted(directory)
        let key = DiskStoreTests.key(1)
        let whole = Self.entry(1)
        let before = Self.bytesReadByThisThread()
        let entry = try #require(store.lookup(key, keepsFirstRead: true, defersBodiesFor: Self.paths.signature)?.entry)
        let after = Self.bytesReadByThisThread()
        if let before, let after {
            // The head (~5 KB with the scan of 600 items, read in 4 KiB pieces) and `/proc`'s own few hundred bytes.
            #expect(after - before < whole.body.count / 4, "read \(after - before) bytes for a body of \(whole.body.count)")
        }
        #expect(entry.body.isEmpty)
        let deferred = try #require(entry.deferredBody)
        #expect(deferred.length == whole.body.count)
        #expect(deferred.checksum == whole.bodyChecksum)
        #expect(entry.bodyChecksum == whole.bodyChecksum)
        #expect(entry.scan == whole.scan)
        #expect(entry.scan?.isCommaRun == true, "the items' run is known without the body")
        let read = deferred.readChecked()
        #expect(read.map { $0 == whole.body } == true, "the body read back and checked is the stored one")
        #expect(budget.heldCount == 1)
        #expect(!store.holdsInMemory(key), "a body left in its file is never a copy in memory")
        // Its next hit reads it whole and keeps it, as without (the third answer is from memory).
        let again = try #require(store.lookup(key, keepsFirstRead: true, defersBodiesFor: Self.paths.signature)?.entry)
        #expect(again.deferredBody == nil)
        #expect(again.body.count == whole.body.count)
        #expect(store.holdsInMemory(key))
        // Another walk's scan, or a lookup that does not defer, reads the body as before.
        let otherDirectory = TemporaryDirectory()
        let (other, _) = Self.restarted(otherDirectory)
        let otherWalks = try #require(other.lookup(key, keepsFirstRead: true, defersBodiesFor: Self.paths.signature &+ 1)?.entry)
        #expect(otherWalks.deferredBody == nil)
        #expect(otherWalks.body.count == whole.body.count)
        let notDeferring = try #require(other.lookup(DiskStoreTests.key(2), keepsFirstRead: true)?.entry)
        #expect(notDeferring.deferredBody == nil)
        #expect(notDeferring.body.count == Self.entry(2).body.count)
    }

    @Test("a body changed on disk is not found by the head-only read (its check is the sender's): the check fails, and the entry is removed off the caller's thread")
    func aCorruptBodyIsFoundByItsCheck() async throws {
        let directory = TemporaryDirectory()
        let (store, _) = Self.restarted(directory)
        let key = DiskStoreTests.key(3)
        try Self.flipBodyByte(store, key)
        // A whole read finds it (and removes it); the head-only read cannot.
        let entry = try #require(store.lookup(key, keepsFirstRead: true, defersBodiesFor: Self.paths.signature)?.entry)
        let deferred = try #require(entry.deferredBody)
        #expect(store.contains(key))
        #expect(deferred.readChecked() == nil)
        await store.waitForEvictions()
        #expect(!store.contains(key))
        #expect(!FileManager.default.fileExists(atPath: store.path(for: key)))
        #expect(store.lookup(key, keepsFirstRead: true, defersBodiesFor: Self.paths.signature) == nil)
    }

    @Test("a truncated file and a corrupt head are misses found by the head-only read, and removed")
    func tornAndCorruptHeadsAreMisses() throws {
        let directory = TemporaryDirectory()
        let (store, budget) = Self.restarted(directory)
        let (torn, corrupt) = (DiskStoreTests.key(1), DiskStoreTests.key(2))
        let size = try #require(CacheFileSystem.fileInfo(store.path(for: torn))?.size)
        #expect(truncate(store.path(for: torn), off_t(size - 10)) == 0)
        // A byte of the header (past the 28-byte prefix, inside the key's hex).
        try Self.flipBodyByte(store, corrupt, at: try #require(CacheFileSystem.fileInfo(store.path(for: corrupt))?.size) - 40)
        #expect(store.lookup(torn, keepsFirstRead: true, defersBodiesFor: Self.paths.signature) == nil)
        #expect(store.lookup(corrupt, keepsFirstRead: true, defersBodiesFor: Self.paths.signature) == nil)
        #expect(!store.contains(torn) && !store.contains(corrupt))
        #expect(!FileManager.default.fileExists(atPath: store.path(for: torn)))
        #expect(!FileManager.default.fileExists(atPath: store.path(for: corrupt)))
        #expect(budget.heldCount == 0)
    }

    @Test("entries read ahead for such a walk are heads with their files; a lookup that does not defer reads the file itself")
    func theReadAheadReadsHeadsForTheWalk() throws {
        let directory = TemporaryDirectory()
        let (store, _) = Self.restarted(directory)
        let keys = (1...3).map(DiskStoreTests.key)
        store.readAhead(keys, defersBodiesFor: Self.paths.signature)
        #expect(keys.allSatisfy(store.holdsReadAhead))
        let taken = try #require(store.lookup(keys[0], keepsFirstRead: true, defersBodiesFor: Self.paths.signature)?.entry)
        #expect(taken.deferredBody != nil && taken.body.isEmpty)
        let reads = store.fileReadCount
        // NDJSON's lookup: the body, never an empty one.
        let whole = try #require(store.lookup(keys[1])?.entry)
        #expect(whole.deferredBody == nil)
        #expect(whole.body.count == Self.entry(2).body.count)
        #expect(store.fileReadCount == reads + 1)
    }
}

import Foundation
import Testing

@testable import PageProxyCore

/// attack6 F1 / F4: two stores on one directory stand for two processes. A version the other one renamed into place
/// is a change of the page for this one once it sees the file: answers stamped with the old version (the memo's)
/// no longer match, and a stale copy in memory gives way to the newer file before it is revalidated or served stale.
@Suite struct OtherProcessVersionTests {
    typealias Make = DiskStoreTests

    static func entry(_ body: String, storedAt: Date, lifetime: TimeInterval) -> CacheEntry {
        CacheEntry(
            status: .ok, headers: HTTPHeaders([("ETag", "\"\(body)\"")]), body: Array(body.utf8), storedAt: storedAt,
            freshUntil: storedAt.addingTimeInterval(lifetime), lifetimeFromUpstream: true)
    }

    @Test("F1: a lookup that reads another process's file gives a new stamp: answers built on the old one no longer match")
    func aFileRenamedByAnotherProcessIsAChange() throws {
        let directory = TemporaryDirectory()
        let (a, b) = (DiskStore(directory: directory.path, maxBytes: 1 << 20), DiskStore(directory: directory.path, maxBytes: 1 << 20))
        let key = Make.key(1)
        let now = Date()
        let old = try #require(b.write(Self.entry("[1]", storedAt: now, lifetime: 60), for: key))
        // The stamp a memo built on B's own version holds.
        #expect(b.changeCount(ifCurrent: [old]) != nil)
        #expect(a.write(Self.entry("[2]", storedAt: now, lifetime: 60), for: key) != nil)
        // B's next lookup reads A's file: v2, a new stamp.
        let read = try #require(b.lookup(key))
        #expect(read.entry.body == Array("[2]".utf8))
        #expect(read.stamp != old)
        #expect(b.changeCount(ifCurrent: [old]) == nil)
        #expect(b.changeCount(ifCurrent: [read.stamp]) != nil)
        // Read again, the same version: the same stamp.
        #expect(b.lookup(key)?.stamp == read.stamp)
    }

    @Test("review9 G4: a lookup that reads another process's version of a known entry counts that file's size in the store's total")
    func anotherProcessVersionIsCountedAtItsOwnSize() throws {
        let directory = TemporaryDirectory()
        let a = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let key = Make.key(1)
        #expect(a.write(Make.entry(1, bodyBytes: 100), for: key) != nil)
        // B starts with A's file indexed, and reads it once (its inode known; a first read keeps no copy in memory).
        let b = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        #expect(b.read(key) != nil)
        #expect(!b.holdsInMemory(key))
        #expect(b.totalBytes == Make.fileSize(bodyBytes: 100))
        #expect(a.write(Make.entry(1, bodyBytes: 5_000), for: key) != nil)
        #expect(b.read(key)?.body.count == 5_000)
        #expect(b.totalBytes == Make.fileSize(bodyBytes: 5_000))
        #expect(b.entryCount == 1)
    }

    /// h13-read18's leftover: the start-up scan's `stat` has each file's inode, and the index records it, so that a
    /// version another process renames into place before this one's first read is another version, as after it.
    @Test("a file renamed over by another process after the start-up scan and before the first read is a new version, counted at its own size")
    func aRenameBeforeTheFirstReadIsAChange() throws {
        let directory = TemporaryDirectory()
        let key = Make.key(1)
        #expect(DiskStore(directory: directory.path, maxBytes: 1 << 20).write(Make.entry(1, bodyBytes: 100), for: key) != nil)
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let scanned = try #require(store.versions(of: [key])?.first)
        #expect(scanned.inode == CacheFileSystem.inode(directory.path + "/" + key.relativePath), "the scan's inode")
        #expect(DiskStore(directory: directory.path, maxBytes: 1 << 20).write(Make.entry(1, bodyBytes: 5_000), for: key) != nil)
        let read = try #require(store.lookup(key))
        #expect(read.entry.body.count == 5_000)
        #expect(read.stamp != scanned.stamp, "the version scanned is not the one read")
        #expect(store.changeCount(ifCurrent: [scanned.stamp]) == nil)
        #expect(store.totalBytes == Make.fileSize(bodyBytes: 5_000))
        #expect(store.lookup(key)?.stamp == read.stamp, "read again: the same version")
    }

    @Test("F4: a stale copy in memory gives way to the fresher version another process stored: a hit, no upstream request")
    func aFresherFileWinsOverAStaleCopy() async throws {
        let directory = TemporaryDirectory()
        let clock = ManualClock()
        let a = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        let source = CachingPageSource(store: store, clock: clock.clock)
        let request = UpstreamRequest(url: PageURL(string: "http://api.test/items?page=1")!)
        let key = CacheKey(request)
        let now = clock.clock.wallNow()
        store.write(Self.entry("[1]", storedAt: now, lifetime: 10), for: key)
        // Read twice: kept in memory, as B kept v1.
        _ = store.lookup(key)
        _ = store.lookup(key)
        #expect(store.holdsInMemory(key))
        clock.advance(by: .seconds(30))
        #expect(a.write(Self.entry("[2]", storedAt: clock.clock.wallNow(), lifetime: 60), for: key) != nil)
        let upstream = CachingPageSourceTests.Upstream { _ throws(UpstreamError) in throw .connectFailed(origin: "api.test", reason: "down") }
        let fetched = try await source.fetch(
            request, policy: CachePolicy(ttl: .seconds(60), staleIfError: true), transport: upstream, timeout: .seconds(600), maxBodyBytes: 1 << 20)
        #expect(fetched.outcome == .hit)
        #expect(fetched.response.body == Array("[2]".utf8))
        #expect(upstream.requests.isEmpty)
    }

    /// Issue 13, eighteenth pass: a copy kept from a file read after a restart is no longer checked by a `stat` of the
    /// path after the read; the inode the read saw carries the check (`noteFileInode`, `fileWasReplaced`).
    @Test("a copy kept from a first read after a restart holds the inode read: another process's rename over the file is seen, and the next lookup reads the new version")
    func aCopyKeptFromAFirstReadSeesAnotherProcessRename() throws {
        let directory = TemporaryDirectory()
        let key = Make.key(1)
        #expect(DiskStore(directory: directory.path, maxBytes: 1 << 20).write(Make.entry(1), for: key) != nil)
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        // A merged walk's lookup: kept in memory on its first hit since the start.
        #expect(store.lookup(key, keepsFirstRead: true)?.entry == Make.entry(1))
        #expect(store.holdsInMemory(key))
        #expect(!store.fileWasReplaced(key), "the file read is the one at the path")
        #expect(DiskStore(directory: directory.path, maxBytes: 1 << 20).write(Make.entry(7), for: key) != nil)
        #expect(store.fileWasReplaced(key))
        #expect(!store.holdsInMemory(key), "the copy of the version renamed over is let go")
        #expect(store.read(key) == Make.entry(7))
    }

    @Test("an entry read ahead after a restart, renamed over by another process before the walk takes it: the copy kept holds the inode read, so the rename is seen")
    func anEntryReadAheadThenRenamedOverIsSeen() throws {
        let directory = TemporaryDirectory()
        let key = Make.key(2)
        #expect(DiskStore(directory: directory.path, maxBytes: 1 << 20).write(Make.entry(2), for: key) != nil)
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 20)
        store.readAhead([key])
        #expect(store.holdsReadAhead(key))
        #expect(DiskStore(directory: directory.path, maxBytes: 1 << 20).write(Make.entry(8), for: key) != nil)
        // The version read ahead was the one at the path when it was read: served, and kept with that version's inode.
        #expect(store.lookup(key, keepsFirstRead: true)?.entry == Make.entry(2))
        #expect(store.fileWasReplaced(key))
        #expect(!store.holdsInMemory(key))
        #expect(store.read(key) == Make.entry(8))
    }
}

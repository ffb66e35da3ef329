import Foundation
import Glibc
import Synchronization
import Testing

@testable import PageProxyCore

/// Entry files are read under a descriptor of the cache directory the store holds (`EntryDirectory`; issue 13, ninth
/// pass): a directory replaced under a running store must not leave it reading the old one.
@Suite struct EntryDirectoryTests {
    /// A store restarted over `cache` holding page 1's entry, which it has read once from its file (so a later
    /// lookup reads the file again: a first read after a restart keeps no copy).
    private static func restartedAfterOneRead(_ cache: String) -> DiskStore {
        DiskStore(directory: cache, maxBytes: 8 << 20).write(DiskStoreTests.entry(1), for: DiskStoreTests.key(1))
        let store = DiskStore(directory: cache, maxBytes: 8 << 20)
        #expect(store.read(DiskStoreTests.key(1)) == DiskStoreTests.entry(1))
        #expect(!store.holdsInMemory(DiskStoreTests.key(1)))
        return store
    }

    @Test("a directory renamed away and made again: the store's own write is what its next lookup reads, not the old file")
    func aReplacedDirectoryIsFollowedAfterAWrite() throws {
        let directory = TemporaryDirectory()
        let cache = directory.path + "/cache"
        let store = Self.restartedAfterOneRead(cache)
        #expect(rename(cache, directory.path + "/cache.old") == 0)
        #expect(mkdir(cache, 0o700) == 0)
        #expect(store.write(DiskStoreTests.entry(9), for: DiskStoreTests.key(1)) != nil)
        #expect(FileManager.default.fileExists(atPath: store.path(for: DiskStoreTests.key(1))), "written by path, in the new directory")
        #expect(store.read(DiskStoreTests.key(1)) == DiskStoreTests.entry(9))
    }

    @Test("review9 B4: a lookup just as a write's record names the new version, the directory replaced, neither serves nor keeps the old file")
    func aLookupAsAWriteLandsAfterTheDirectoryWasReplacedNeverKeepsTheOldFile() throws {
        let directory = TemporaryDirectory()
        let cache = directory.path + "/cache"
        DiskStore(directory: cache, maxBytes: 8 << 20).write(DiskStoreTests.entry(1), for: DiskStoreTests.key(1))
        // The lookup runs in the write, once its record names the version written (the interleaving, made certain).
        let lookingUp = Mutex<DiskStore?>(nil)
        let foundMidWrite = Mutex<[CacheEntry?]>([])
        let store = DiskStore(directory: cache, maxBytes: 8 << 20, onWritten: { key in
            guard let store = lookingUp.withLock({ $0 }) else { return }
            let found = store.read(key)
            foundMidWrite.withLock { $0.append(found) }
        })
        #expect(store.read(DiskStoreTests.key(1)) == DiskStoreTests.entry(1))
        #expect(rename(cache, directory.path + "/cache.old") == 0)
        #expect(mkdir(cache, 0o700) == 0)
        lookingUp.withLock { $0 = store }
        #expect(store.write(DiskStoreTests.entry(9), for: DiskStoreTests.key(1)) != nil)
        lookingUp.withLock { $0 = nil }
        let found = foundMidWrite.withLock { $0 }
        #expect(found.count == 1)
        #expect(found.allSatisfy { $0 != DiskStoreTests.entry(1) }, "the old file, read through the directory renamed away")
        // Nor kept: every later lookup reads the version written.
        #expect(store.read(DiskStoreTests.key(1)) == DiskStoreTests.entry(9))
        #expect(store.read(DiskStoreTests.key(1)) == DiskStoreTests.entry(9))
    }

    @Test("review9 B4's miss: a file read through a directory renamed away, another than the one at the path, is not served; the next lookup reads the current one")
    func aFileReadThroughAnOldDirectoryIsAMissAndTheNextLookupFollows() throws {
        let directory = TemporaryDirectory()
        let cache = directory.path + "/cache"
        let store = Self.restartedAfterOneRead(cache)
        // Another process renames a version into place (an inode this store has not seen), then the directory is
        // renamed away and made again, where a third version is written.
        #expect(DiskStore(directory: cache, maxBytes: 8 << 20).write(DiskStoreTests.entry(5), for: DiskStoreTests.key(1)) != nil)
        #expect(rename(cache, directory.path + "/cache.old") == 0)
        #expect(mkdir(cache, 0o700) == 0)
        #expect(DiskStore(directory: cache, maxBytes: 8 << 20).write(DiskStoreTests.entry(9), for: DiskStoreTests.key(1)) != nil)
        // Read through the held (old) directory: another inode, not the one at the path now, so not served (a miss), or,
        // had the store's once-a-second check come first, the current version.
        let first = store.read(DiskStoreTests.key(1))
        #expect(first == nil || first == DiskStoreTests.entry(9))
        // The miss replaced the held directory: the next lookup reads the current version, not a miss until the check.
        #expect(store.read(DiskStoreTests.key(1)) == DiskStoreTests.entry(9))
    }

    @Test("a directory removed and made again, another process writing there: a known entry is read from the new one")
    func aRemovedDirectoryIsFollowedWhenAnEntryIsMissing() throws {
        let directory = TemporaryDirectory()
        let cache = directory.path + "/cache"
        let store = Self.restartedAfterOneRead(cache)
        try FileManager.default.removeItem(atPath: cache)
        let other = DiskStore(directory: cache, maxBytes: 8 << 20)
        #expect(other.write(DiskStoreTests.entry(9), for: DiskStoreTests.key(1)) != nil)
        #expect(store.read(DiskStoreTests.key(1)) == DiskStoreTests.entry(9))
        #expect(store.contains(DiskStoreTests.key(1)))
    }

    @Test("entries are read under the held directory: a lookup reads through it, and the inode read is the file's")
    func theHeldDirectoryReadsEntries() throws {
        let directory = TemporaryDirectory()
        let held = EntryDirectory(path: directory.path)
        #expect(held.isCurrent)
        let key = DiskStoreTests.key(3)
        #expect(mkdir(directory.path + "/" + key.directoryName, 0o700) == 0)
        _ = FileManager.default.createFile(atPath: directory.path + "/" + key.relativePath, contents: Data("abc".utf8))
        let inode = CacheFileSystem.inode(directory.path + "/" + key.relativePath)
        #expect(inode != nil)
        let bytes = try? held.locate(key.relativePath) { (fd, path) throws(CacheFileSystem.Failure) in
            try CacheFileSystem.read(path, in: fd, headLength: { _ in 1 })
        }
        #expect(bytes?.head == Array("a".utf8))
        #expect(bytes?.tail == Array("bc".utf8))
        #expect(bytes?.inode == inode)
        let missing = try held.locate("00/missing.entry") { (fd, path) throws(CacheFileSystem.Failure) in
            try CacheFileSystem.read(path, in: fd, headLength: { _ in 1 })
        }
        #expect(missing == nil)
        // Replaced: no longer current; a directory that cannot be opened never is.
        #expect(rename(directory.path, directory.path + ".old") == 0)
        #expect(mkdir(directory.path, 0o700) == 0)
        #expect(!held.isCurrent)
        #expect(!EntryDirectory(path: directory.path + "/none").isCurrent)
        try? FileManager.default.removeItem(atPath: directory.path + ".old")
    }
}

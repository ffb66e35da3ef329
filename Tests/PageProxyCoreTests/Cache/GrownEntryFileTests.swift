import Foundation
import Glibc
import Testing

@testable import PageProxyCore

/// attack15 L2: an entry file longer than its prefix says (a foreign writer, a restore tool; `truncate -s 8G` made
/// four 8 GB sparse ones) was read whole into memory (8.4 GB RSS for one request) before the length check rejected
/// it. Its size is compared with the prefix's lengths first: none of its body is read, and it is a miss, removed.
@Suite struct GrownEntryFileTests {
    /// The path of page 1's entry in a store at `directory`, grown to `size` bytes (sparse), and its size before.
    private static func grownEntry(in directory: TemporaryDirectory, to size: Int) throws -> (path: String, written: Int) {
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 40)
        store.write(DiskStoreTests.entry(1, bodyBytes: 6000), for: DiskStoreTests.key(1))
        let path = directory.path + "/" + DiskStoreTests.key(1).relativePath
        let written = try #require(CacheFileSystem.fileInfo(path)).size
        #expect(truncate(path, off_t(size)) == 0)
        return (path, written)
    }

    @Test("a file longer than its prefix says is read no further than its first bytes", arguments: [false, true])
    func aGrownFileIsNotReadWhole(guessing: Bool) throws {
        let directory = TemporaryDirectory()
        let (path, written) = try Self.grownEntry(in: directory, to: 64 << 20)
        let read = try #require(try CacheFileSystem.read(
            path, headLength: CacheEntryFormat.headLength(of:), fileLength: CacheEntryFormat.fileLength(of:),
            guessedHeadLength: guessing ? written - 6000 : nil))
        #expect(read.tail.isEmpty)
        #expect(read.head.count <= CacheFileSystem.firstReadBytes)
        #expect(throws: CacheEntryFormat.Invalid.self) { try CacheEntryFormat.decode(head: read.head, body: read.tail, key: DiskStoreTests.key(1)) }
    }

    @Test("read through the hashing path, a file longer than its prefix says gives no body bytes")
    func aGrownFileIsNotHashedWhole() throws {
        let directory = TemporaryDirectory()
        let (path, _) = try Self.grownEntry(in: directory, to: 64 << 20)
        var shownBodyLength = -1
        let read = try #require(try CacheFileSystem.readHashingBody(
            path, headLength: CacheEntryFormat.headLength(of:), fileLength: CacheEntryFormat.fileLength(of:),
            holding: HeldEntryFileBudget(capacity: 1)
        ) { _, bodyLength in
            shownBodyLength = bodyLength
            return true
        })
        #expect(read.bodyRead == 0)
        #expect(read.body?.capacity ?? 0 < 1 << 20)
        #expect(shownBodyLength == (64 << 20) - read.head.count || read.head.count < CacheEntryFormat.prefixLength)
    }

    @Test("a file whose size matches its prefix is read whole, as before")
    func anUngrownFileIsReadWhole() throws {
        let directory = TemporaryDirectory()
        let store = DiskStore(directory: directory.path, maxBytes: 1 << 40)
        store.write(DiskStoreTests.entry(1, bodyBytes: 6000), for: DiskStoreTests.key(1))
        let path = directory.path + "/" + DiskStoreTests.key(1).relativePath
        let read = try #require(try CacheFileSystem.read(
            path, headLength: CacheEntryFormat.headLength(of:), fileLength: CacheEntryFormat.fileLength(of:)))
        #expect(read.head.count + read.tail.count == CacheFileSystem.fileInfo(path)?.size)
        #expect(try CacheEntryFormat.decode(head: read.head, body: read.tail, key: DiskStoreTests.key(1)) == DiskStoreTests.entry(1, bodyBytes: 6000))
    }

    @Test("after a restart, a grown entry is a miss and its file is removed")
    func aGrownEntryIsAMissAndRemoved() throws {
        let directory = TemporaryDirectory()
        let (path, _) = try Self.grownEntry(in: directory, to: 64 << 20)
        let restarted = DiskStore(directory: directory.path, maxBytes: 1 << 40)
        #expect(restarted.lookup(DiskStoreTests.key(1), keepsFirstRead: false) == nil)
        #expect(CacheFileSystem.fileInfo(path) == nil)
    }
}

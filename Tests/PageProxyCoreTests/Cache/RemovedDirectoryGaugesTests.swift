import Foundation
import Testing

@testable import PageProxyCore

/// attack15 U1, retest15: after the cache directory was removed under a running store (`rm -rf`, which README allows),
/// the store's index still counted the entries gone with it (513 entries and 274,516 bytes in `/metrics` with 101
/// files on disk), and its evictions judged by those sizes.
@Suite struct RemovedDirectoryGaugesTests {
    @Test("a directory removed under a running store: once a write makes it again, the index counts only what is in it",
          arguments: [false, true])
    func theIndexForgetsTheEntriesOfARemovedDirectory(madeAgainAtOnce: Bool) throws {
        let directory = TemporaryDirectory()
        let root = directory.path + "/cache"
        let store = DiskStore(directory: root, maxBytes: 1 << 20)
        for page in 1...3 { #expect(store.write(DiskStoreTests.entry(page, bodyBytes: 500), for: DiskStoreTests.key(page)) != nil) }
        #expect(store.entryCount == 3)
        try FileManager.default.removeItem(atPath: root)
        if madeAgainAtOnce { try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false) }
        #expect(store.write(DiskStoreTests.entry(4, bodyBytes: 700), for: DiskStoreTests.key(4)) != nil)
        #expect(store.isEnabled)
        #expect(store.entryCount == 1)
        let file = try #require(CacheFileSystem.fileInfo(root + "/" + DiskStoreTests.key(4).relativePath))
        #expect(store.totalBytes == file.size)
        #expect(store.read(DiskStoreTests.key(4)) != nil)
    }
}

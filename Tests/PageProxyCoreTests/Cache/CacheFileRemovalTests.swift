import Foundation
import Testing

@testable import PageProxyCore

/// review14 F6: a corrupt entry's bytes are released by whoever unlinked it. `remove(_:ifInode:)` says whether it did,
/// so that DiskStore no longer judges by an `lstat` of its own before the unlink (another process's eviction between
/// the two released the same bytes twice).
@Suite struct CacheFileRemovalTests {
    @Test("remove says whether it unlinked: not another inode's file, not a file already gone")
    func removeSaysWhetherItUnlinked() throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/entry"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
        let inode = try #require(CacheFileSystem.inode(path))
        // A newer version renamed over it has another inode: left in place.
        #expect(!CacheFileSystem.remove(path, ifInode: inode &+ 1))
        #expect(CacheFileSystem.inode(path) == inode)
        #expect(CacheFileSystem.remove(path, ifInode: inode))
        #expect(CacheFileSystem.inode(path) == nil)
        // Gone already (another process evicted it first): not this call's to account for.
        #expect(!CacheFileSystem.remove(path, ifInode: inode))
        #expect(!CacheFileSystem.remove(path))
    }
}

import CLinux
import Glibc

/// A descriptor of the cache directory, held open so that entry files are opened and checked by their path under it
/// (`<2 hex>/<64 hex>.entry`), not by their whole path: each whole path was walked by the kernel again, component by
/// component, for every `open` and `stat` (issue 13, ninth pass: ~4 % of the first read-back after a restart).
///
/// A directory removed and made again, or renamed away and replaced, under a running store leaves this descriptor on
/// the old one, while writes (by path) go to the new: the store asks `isCurrent` about once a second and whenever an
/// entry it knows is missing, and opens the directory again when it is not (`DiskStore`). The descriptor is closed
/// when the last holder lets go (a read under way keeps the old one until it is done: no descriptor is closed under
/// a reader, nor its number reused by another file meanwhile).
package final class EntryDirectory: Sendable {
    /// The directory's path.
    package let path: String
    /// The descriptor, or -1 when the directory could not be opened (entries are then opened by their whole path).
    private let descriptor: Int32
    /// The directory's device and inode when it was opened.
    private let identity: (device: UInt64, inode: UInt64)?

    /// Opens `path`; a directory that cannot be opened yields one that opens entries by their whole path.
    package init(path: String) {
        self.path = path
        var fd = pageproxy_open_directory(path)
        while fd < 0, errno == EINTR { fd = pageproxy_open_directory(path) }
        var info = stat()
        if fd >= 0, fstat(fd, &info) == 0 {
            descriptor = fd
            identity = (UInt64(info.st_dev), UInt64(info.st_ino))
        } else {
            if fd >= 0 { close(fd) }
            descriptor = -1
            identity = nil
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Whether the descriptor is of the directory now at `path` (and was opened at all).
    package var isCurrent: Bool {
        guard let identity else { return false }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return UInt64(info.st_dev) == identity.device && UInt64(info.st_ino) == identity.inode
    }

    /// Whether the entries this directory held are none of `fresh`'s, opened at the same path since: this one was
    /// removed (`rm -rf`: its link count is 0) or another directory is at the path now. Not when the same directory
    /// is opened again (one that was unusable for a while: its entries are still there).
    package func isGone(replacedBy fresh: EntryDirectory) -> Bool {
        guard let identity else { return false }
        if let other = fresh.identity { return other.device != identity.device || other.inode != identity.inode }
        var info = stat()
        return descriptor >= 0 && fstat(descriptor, &info) == 0 && info.st_nlink == 0
    }

    /// Calls `body` with the directory to open `relative` under and the path to give it: the held descriptor and
    /// `relative`, or `AT_FDCWD` and the whole path.
    package func locate<Result>(_ relative: String, _ body: (_ directory: Int32, _ path: String) throws(CacheFileSystem.Failure) -> Result)
        throws(CacheFileSystem.Failure) -> Result
    {
        descriptor >= 0 ? try body(descriptor, relative) : try body(AT_FDCWD, "\(path)/\(relative)")
    }
}

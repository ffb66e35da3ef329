import CLinux
import Glibc

/// The few file-system calls the disk cache makes, each retrying `EINTR` and throwing the call's name and `errno`.
///
/// Files are created `0600` and directories `0700`: cached pages may hold data fetched with a user's credentials.
///
/// Split by concern: reads (`+Read`, `+HashingRead`), writes and removals (`+Write`), directories (`+Directory`), a
/// file's last use (`+LastUse`) and what `lstat` says of it (`+FileInfo`). This file holds what they share.
package enum CacheFileSystem {
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package let call: String
        package let path: String
        package let errno: Int32

        package var description: String { "\(call) \(path): \(String(cString: strerror(errno)))" }

        /// Whether the failure means the directory cannot hold the cache (read-only, forbidden, gone). A full volume
        /// does not (`meansNoSpace`): the store evicts to make room, and skips what still does not fit.
        package var disablesCache: Bool {
            [EROFS, EACCES, EPERM, ENOENT, ENOTDIR].contains(errno)
        }

        /// Whether the volume (or the user's quota) had no space for the write.
        package var meansNoSpace: Bool { errno == ENOSPC || errno == EDQUOT }

        /// Whether a `.pageCacheOnly` read stopped because the bytes would have to come from the disk.
        package var wouldBlock: Bool { errno == EAGAIN }
    }

    /// How long a read may wait.
    package enum ReadWait: Sendable {
        /// As long as the disk takes.
        case mayWaitForDisk
        /// Not at all: only bytes already in the kernel's page cache are read; others throw a failure whose
        /// `wouldBlock` is true (a thread of the cooperative pool must not wait for a disk). Where the file system
        /// cannot tell (`RWF_NOWAIT` unsupported), the read waits as `mayWaitForDisk` would.
        case pageCacheOnly
    }

    /// `call`'s result, calling it again while it fails with `EINTR`.
    static func retrying(_ call: () -> Int32) -> Int32 {
        var result = call()
        while result < 0 && errno == EINTR { result = call() }
        return result
    }

    /// `call`'s result, calling it again while it fails with `EINTR`.
    static func retrying(_ call: () -> Int) -> Int {
        var result = call()
        while result < 0 && errno == EINTR { result = call() }
        return result
    }

    /// The failure of `call` on `path`, with the `errno` it left.
    static func failure(_ call: String, _ path: String) -> Failure {
        Failure(call: call, path: path, errno: errno)
    }
}

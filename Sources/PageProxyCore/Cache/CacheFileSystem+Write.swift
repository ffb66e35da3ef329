import CLinux
import Glibc

/// Writes, swaps and removals of files: a temporary file renamed into place, a version swapped with the one it
/// replaces, a file detached to take it.
extension CacheFileSystem {
    /// Writes `bytes` to `temporary` (created exclusively, mode 0600), then renames it to `path`.
    ///
    /// No fsync: after a power loss the renamed file may be empty or torn, which the entry's length and checksum
    /// catch on the next read. A process crash (kill -9) cannot tear it: the rename happens only after every byte
    /// is written, and a leftover temporary file is removed at the next start.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, temporary: String) throws(Failure) {
        try writeTemporary(bytes, temporary)
        try moveIntoPlace(temporary, path)
    }

    /// Writes `bytes` to the new file `temporary` (removed again if that fails).
    /// - Parameter synced: `fsync` it before it is closed (an answer's entry, `AnswerEntries`: its body is not hashed
    ///   when it is read, so its bytes must be on the disk before its name is).
    package static func writeTemporary(_ bytes: [UInt8], _ temporary: String, synced: Bool = false) throws(Failure) {
        let fd = retrying { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw failure("open", temporary) }
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                retrying { write(fd, buffer.baseAddress.unsafelyUnwrapped + done, bytes.count - done) }
            }
            if count <= 0 {
                let error = failure("write", temporary)
                close(fd)
                unlink(temporary)
                throw error
            }
            done += count
        }
        guard !synced || retrying({ fsync(fd) }) == 0 else {
            let error = failure("fsync", temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        guard close(fd) == 0 else {
            let error = failure("close", temporary)
            unlink(temporary)
            throw error
        }
    }

    /// Renames `temporary` over `path` in one step (removing `temporary` if that fails).
    package static func moveIntoPlace(_ temporary: String, _ path: String) throws(Failure) {
        guard rename(temporary, path) == 0 else {
            let error = failure("rename", path)
            unlink(temporary)
            throw error
        }
    }

    /// Removes `path`.
    package static func remove(_ path: String) {
        unlink(path)
    }

    /// Puts `temporary` in `path`'s place in one step. Returns the size of the version it replaced (0: none) and
    /// where that version now is (for the caller to unlink; nil: none).
    ///
    /// The swap (`renameat2` with `RENAME_EXCHANGE`) means a reader never finds the place empty, and the size is that
    /// of exactly the file replaced, even when another process takes (`detach`es) the old version at that moment.
    /// Where the file system cannot swap, the old version is detached to `aside` first: the place is then empty for
    /// the span of one `rename` (a reader in between misses).
    package static func replace(_ path: String, with temporary: String, aside: String) throws(Failure) -> (replaced: Int, leftAt: String?) {
        if pageproxy_rename_exchange(temporary, path) == 0 {
            return (fileInfo(temporary)?.size ?? 0, temporary)
        }
        switch errno {
        case ENOENT:
            try moveIntoPlace(temporary, path)
            return (0, nil)
        case EINVAL, ENOSYS, EOPNOTSUPP:
            let replaced = detach(path, to: aside)
            try moveIntoPlace(temporary, path)
            return (replaced ?? 0, replaced == nil ? nil : aside)
        default:
            let error = failure("renameat2", path)
            unlink(temporary)
            throw error
        }
    }

    /// Moves the file at `path` aside to `aside` (a name no one else uses) and returns its size, or nil when there
    /// is none. The `rename` is atomic: when two callers race to take the same file, exactly one gets it, and it knows
    /// exactly how many bytes it took (a newer version renamed over `path` since it looked is what it takes).
    package static func detach(_ path: String, to aside: String) -> Int? {
        guard rename(path, aside) == 0 else { return nil }
        return fileInfo(aside)?.size ?? 0
    }
}

import Glibc

/// What `lstat` says of a file: its inode, its size, its last use.
extension CacheFileSystem {
    /// A file's inode number, or nil.
    package static func inode(_ path: String) -> UInt64? {
        inodeAndSize(path)?.inode
    }

    /// A file's inode number and size, or nil (one `lstat`).
    package static func inodeAndSize(_ path: String) -> (inode: UInt64, size: Int)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_ino), Int(info.st_size))
    }

    /// A regular file's size, when it was last used (`lastUse`) and its inode (the version the index knows it by), or nil.
    package static func fileInfo(_ path: String) -> (size: Int, used: Int64, inode: UInt64)? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return (Int(info.st_size), lastUse(info), UInt64(info.st_ino))
    }
}

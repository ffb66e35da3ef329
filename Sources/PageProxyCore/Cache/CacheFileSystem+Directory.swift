import Glibc

/// The cache's directories: made with their parents, told from links and files in their place, listed, removed
/// when empty.
extension CacheFileSystem {
    /// Creates `path` (mode 0700) and its missing parents; an existing directory is fine.
    package static func makeDirectory(_ path: String) throws(Failure) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { throw failure("mkdir", prefix) }
            prefix += "/"
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure("stat", path) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw Failure(call: "mkdir", path: path, errno: ENOTDIR) }
    }

    /// Whether `path` is a directory itself, not a symbolic link to one (`lstat`): a fan-out folder of the cache that is
    /// a link leads outside it, where nothing is read, written or removed (attack15 L1).
    package static func isOwnDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether something that is no directory of its own (a symbolic link, a file) is at `path` (`lstat`); false when
    /// nothing is (a folder about to be made).
    package static func isForeignFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR
    }

    /// Removes the directory `path` when it is empty (`rmdir` refuses any other); true when it did.
    @discardableResult
    package static func removeDirectoryIfEmpty(_ path: String) -> Bool {
        rmdir(path) == 0
    }

    /// The names in a directory (without "." and ".."), or nil when it cannot be read.
    package static func names(in directory: String) -> [String]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var names: [String] = []
        while let item = readdir(handle) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

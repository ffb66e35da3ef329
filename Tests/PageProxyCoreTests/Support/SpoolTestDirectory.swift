import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory for spool tests, removed by `remove()`, that can tell which descriptors point into it.
struct SpoolTestDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-core-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The names in the directory.
    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path)
    }

    /// How many of this process's descriptors point at a file in the directory, named or deleted.
    func openDescriptors() -> Int {
        openDescriptorNumbers().count
    }

    /// This process's descriptors that point at a file in the directory (`/proc/self/fd` shows an `O_TMPFILE`
    /// file as `<dir>/#<inode> (deleted)`).
    func openDescriptorNumbers() -> [String] {
        let links = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return links.filter { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) else { return false }
            return target.hasPrefix(path + "/")
        }
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

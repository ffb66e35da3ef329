import Glibc

/// What `statvfs` says of the volume the cache is on, read when a write found no space (attack13 L2, L3): whether the
/// volume ran out of inodes rather than of blocks, and whether a page could fit it at all.
package struct CacheVolume: Sendable, Equatable {
    /// Bytes an unprivileged writer may still use.
    package var freeBytes: Int
    /// Inodes an unprivileged writer may still use; nil when the file system does not count them (`f_files` 0).
    package var freeInodes: Int?

    package init(freeBytes: Int, freeInodes: Int?) {
        self.freeBytes = freeBytes
        self.freeInodes = freeInodes
    }

    /// The volume holding `path`; nil when `statvfs` fails.
    package static func of(_ path: String) -> CacheVolume? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let (free, size) = info.f_bavail.multipliedReportingOverflow(by: info.f_frsize)
        return CacheVolume(
            freeBytes: size ? Int.max : Int(clamping: free), freeInodes: info.f_files == 0 ? nil : Int(clamping: info.f_favail))
    }

    /// Out of inodes with blocks to spare: every file (and fan-out directory) takes one, so small entries can use up
    /// a volume's inodes long before its space.
    package var isOutOfInodes: Bool { freeInodes == 0 && freeBytes > 0 }

    /// Whether `size` bytes could be written once every entry the store knows of (`stored` bytes) were evicted: when
    /// not, evicting for them would empty the cache and still not store them (attack13 L3).
    package func couldHold(_ size: Int, evicting stored: Int) -> Bool {
        let (room, overflow) = freeBytes.addingReportingOverflow(max(0, stored))
        return overflow || size <= room
    }
}

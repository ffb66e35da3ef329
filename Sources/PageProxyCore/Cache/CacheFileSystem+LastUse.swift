import Glibc

/// A file's last use: the times a touch sets and a read refreshes when due, the LRU order that survives a restart.
extension CacheFileSystem {
    /// Refreshes the file's times through `fd` when `touch` asks and they are not recent (`wasTouchedRecently`), before
    /// its bytes are read, and takes `info` again: the times a held file's `stamp` is compared with are those after the
    /// touch (attack13 L1), and no path is looked up again (the LRU order that survives a restart). Copies of the file
    /// held for sending keep up with the touch (`HeldFileStamps`).
    static func touchIfDue(_ fd: Int32, _ info: inout stat, touch: Bool) {
        guard touch, !wasTouchedRecently(usedAt: lastUse(info) / 1_000_000_000) else { return }
        _ = HeldFileStamps.shared.touch(fd, &info)
    }

    /// Sets a file's access and modification times to now: the LRU order that survives a restart. Copies of the file
    /// held for sending keep up with it (`HeldFileStamps`).
    package static func touch(_ path: String) {
        HeldFileStamps.shared.touch(path)
    }

    /// How fine the LRU order that survives a restart is: a read that would refresh a file's time leaves a time set
    /// less than this long ago as it is. Issue 13: the first hit of each entry after a restart refreshed its file's
    /// time, an inode write (`futimens`, 3–6 % of the first read-back after a restart); the entries a proxy restarted
    /// in a rolling deploy hits first are the ones it wrote or refreshed last, whose times are already that recent.
    package static let touchResolution: Int = 60

    /// Whether `modified` (a file's modification time, in seconds since 1970) is less than `touchResolution` seconds
    /// ago; a time ahead of the clock (the clock was set back) is not recent, so the file is refreshed.
    static func wasTouchedRecently(usedAt used: Int64) -> Bool {
        let now = Int64(time(nil))
        return used <= now && now - used < Int64(touchResolution)
    }

    /// When a file was last used, in nanoseconds since 1970: the later of its access time (which PageProxy's touch
    /// sets, and reads of entries never move) and its modification time (when it was written).
    static func lastUse(_ info: stat) -> Int64 {
        max(Int64(info.st_atim.tv_sec) * 1_000_000_000 + Int64(info.st_atim.tv_nsec), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }
}

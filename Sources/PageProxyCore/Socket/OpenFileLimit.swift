#if canImport(Glibc)
import Glibc
#endif

/// The process's limit on open descriptors.
///
/// A proxy holds a socket per client and per upstream connection, and a merged answer read back from the cache holds
/// its entry files open while it is sent (`HeldEntryFileBudget`: a quarter of the soft limit). Many systems start a
/// service with a soft limit of 1,024 and a far higher hard one; raising the soft limit to the hard one at start is
/// what nginx (`worker_rlimit_nofile`) and Go's runtime do.
package enum OpenFileLimit {
    /// The highest soft limit this raises to, whatever the hard limit (an unlimited hard limit included).
    package static let ceiling: UInt64 = 1 << 20

    /// The soft limit now; nil when it cannot be read.
    package static var soft: UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return UInt64(limit.rlim_cur)
    }

    /// Raises the soft limit to the hard one (at most `ceiling`); never lowers it. Returns the soft limit after.
    @discardableResult
    package static func raiseToHardLimit() -> UInt64? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let target = min(UInt64(limit.rlim_max), ceiling)
        if UInt64(limit.rlim_cur) < target {
            limit.rlim_cur = rlim_t(target)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return soft
    }

    /// How many descriptors the table is grown to at start, at most (the held entry files' budget is at most 4,096).
    package static let reservedTable = 8192

    /// Grows the process's descriptor table to hold `count` descriptors (at most the soft limit), now, while no request
    /// waits: the kernel grows it by doubling as descriptors are taken, and each growth in a process of many threads
    /// waits for an RCU grace period (`expand_files` → `synchronize_rcu`, milliseconds each). A first merged read-back
    /// sent from ~500 held entry files grew it from 64 to 1,024 on the walk's thread: 2 such waits a request, its head
    /// 2.4× later than from memory at the same CPU (issue 13, eleventh pass). The table never shrinks. Returns the
    /// highest descriptor number it reached, nil when it could not (the table then grows as before).
    @discardableResult
    package static func growDescriptorTable(to count: Int = reservedTable) -> Int32? {
        let limit = Int(min(soft ?? 1024, UInt64(count)))
        guard limit > 1 else { return nil }
        let base = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard base >= 0 else { return nil }
        defer { close(base) }
        let high = fcntl(base, F_DUPFD_CLOEXEC, Int32(limit - 1))
        guard high >= 0 else { return nil }
        close(high)
        return high
    }
}

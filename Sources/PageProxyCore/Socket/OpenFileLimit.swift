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
}

import PageProxyCore

#if canImport(Glibc)
import Glibc
#endif

/// Where merged answers wait until every page has arrived: memory up to `memoryBytes` (and past it while the
/// process's `heldBudget` lasts), then a temporary file.
struct MergedSpool: Sendable {
    /// Makes the temporary file a merged answer moves to once it outgrows `memoryBytes`.
    var open: SpooledBody.SpoolOpener
    /// A merged answer up to this size stays in memory.
    var memoryBytes = 1 << 20
    /// What answers past `memoryBytes` may borrow, all together, to stay in memory; nil: they spool at once.
    var heldBudget: HeldBytesBudget?

    /// The process's budget for answers past `memoryBytes`: enough for every one of 64 concurrent answers to be
    /// 256 KiB over, or for one answer of 17 MiB; larger answers wait on disk.
    static let defaultHeldBytes = 16 << 20

    init(open: @escaping SpooledBody.SpoolOpener, memoryBytes: Int = 1 << 20, heldBudget: HeldBytesBudget? = nil) {
        self.open = open
        self.memoryBytes = memoryBytes
        self.heldBudget = heldBudget
    }

    /// Temporary files in the first of `directories` where one can be made, after `heldBytes` of memory.
    init(directories: [String], heldBytes: Int = Self.defaultHeldBytes) {
        self.init(
            open: { () throws(SpoolError) -> SpoolFile in try SpoolFile.create(inFirstOf: directories) },
            heldBudget: heldBytes > 0 ? HeldBytesBudget(capacity: heldBytes) : nil)
    }

    /// The cache directory when the cache is on (it is sized for this data and often on a volume meant for it),
    /// then `$TMPDIR`, then `/tmp`.
    static func directories(for config: Config) -> [String] {
        var directories: [String] = []
        if config.cache.maxBytes > 0 { directories.append(config.cache.directory) }
        if let tmp = getenv("TMPDIR").map({ String(cString: $0) }), !tmp.isEmpty { directories.append(tmp) }
        directories.append("/tmp")
        return directories
    }
}

import PageProxyCore

#if canImport(Glibc)
import Glibc
#endif

/// Where merged answers wait until every page has arrived: memory up to `memoryBytes`, then a temporary file.
struct MergedSpool: Sendable {
    /// Makes the temporary file a merged answer moves to once it outgrows `memoryBytes`.
    var open: SpooledBody.SpoolOpener
    /// A merged answer up to this size stays in memory.
    var memoryBytes = 1 << 20

    init(open: @escaping SpooledBody.SpoolOpener, memoryBytes: Int = 1 << 20) {
        self.open = open
        self.memoryBytes = memoryBytes
    }

    /// Temporary files in the first of `directories` where one can be made.
    init(directories: [String]) {
        self.init(open: { () throws(SpoolError) -> SpoolFile in try SpoolFile.create(inFirstOf: directories) })
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

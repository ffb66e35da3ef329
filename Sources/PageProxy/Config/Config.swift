import PageProxyMock
import PageProxyServer
/// The whole validated configuration: `config.json` with the environment overrides applied.
struct Config: Sendable {
    var listen: ListenConfig
    var cache: CacheConfig
    var server: ServerConfig
    var logLevel: LogLevel
    /// The built-in mock upstream; `nil` when the file has no `mock` section.
    var mock: MockConfig?
    /// At least one, with unique names.
    var routes: [RouteConfig]
    /// What loads although PageProxy ignores it (`ConfigWarnings`): logged by `serve`, an error to `check-config`.
    var warnings: [ConfigError] = []

    func route(named name: String) -> RouteConfig? {
        routes.first { $0.name == name }
    }
}

/// Where the proxy accepts connections.
struct ListenConfig: Sendable, Equatable {
    /// An IPv4 literal such as `127.0.0.1` or `0.0.0.0`.
    var address: String
    /// 0...65535; 0 asks the kernel for an ephemeral port.
    var port: Int
}

/// The on-disk cache of aggregated responses.
struct CacheConfig: Sendable, Equatable {
    var directory: String
    /// The most the cache may hold; 0 disables it.
    var maxBytes: Int
    /// Whether a configured cache whose directory cannot be used makes `/readyz` answer 503. The proxy serves
    /// (uncached) either way; a sidecar that would rather stay in service sets this to false.
    var requiredForReadiness = true
    /// The most bytes of merged answers kept in memory (`MergedAnswerMemo`); nil: an eighth of `maxBytes`, at most
    /// 64 MiB; 0 turns the memo off (every merged answer walks the cache).
    var memoBytes: Int? = nil
    /// How often a cache whose directory is unusable (at its start or since) tries it again (tests shorten it).
    var retryInterval: Duration = .seconds(30)
    /// Whether merged answers read back from entry files are sent from the files (each file held open until it is
    /// sent) rather than from memory: fewer page faults and less memory, and a sooner first answer after a restart,
    /// but its second answer reads the files again (BENCHMARKS.md, issue 13 twelfth pass); off by default.
    var sendsFromFiles = false
    /// The most page bytes read into memory at start, the most recently used first, after the proxy listens
    /// (`DiskStore.warmUp`): the first walk after a restart then reads no files (issue 13, twenty-fifth pass). Within
    /// the store's memory bound; 0 turns it off. The config file's default is `defaultWarmBytes`; a config built in code
    /// (tests, which count the files a walk after a restart reads) leaves it off.
    var warmBytes = 0
    /// Which memoized answers are written as answer entries too; not a key of the config file (tests lower it).
    var answerEntryWorth = AnswerEntryWorth.standard

    /// `cache.warmBytes` when the config file does not say: the store's memory bound (`DiskStore.memoryLimit`); none
    /// with `sendFromFiles`, whose pages are meant to stay in their files (warmed copies would be sent from memory:
    /// review25's MEDIUM).
    static func defaultWarmBytes(maxBytes: Int, sendsFromFiles: Bool = false) -> Int {
        sendsFromFiles ? 0 : min(maxBytes, 64 << 20)
    }

    /// The memo's bound: `memoBytes`, or its default.
    var memoLimit: Int { memoBytes ?? min(maxBytes / 8, 64 << 20) }

    /// Whether the process may hold entry files open from `HeldEntryFileBudget.shared`: pages sent from their files
    /// (`sendsFromFiles`), and merged answers read back from the cache directory, which the memo keeps as open files
    /// whenever it is on (`AnswerEntries`; review24 P17).
    var holdsEntryFiles: Bool { maxBytes > 0 && (sendsFromFiles || memoLimit > 0) }
}

/// Limits of the HTTP server.
struct ServerConfig: Sendable, Equatable {
    var maxConnections: Int
    /// How long a client may take to send a request's head.
    var headerTimeout: Duration
    /// How long a kept-alive connection may sit idle.
    var idleTimeout: Duration
    /// How long in-flight requests may run on after a shutdown signal.
    var shutdownGrace: Duration
    var maxRequestLineBytes: Int
    var maxHeaderBytes: Int
    /// `SO_SNDBUF` of client connections; 0 leaves the kernel's auto-tuning.
    var sendBufferBytes = 262_144
    /// How long a client may take no bytes of its answer before the connection is closed (renewed whenever it takes
    /// some: a slow reader that keeps reading is not cut).
    var writeTimeout: Duration = .seconds(30)
    /// After SIGTERM, how long the proxy keeps accepting and serving while `/readyz` answers 503, before it closes
    /// its listener and drains.
    var drainDelay: Duration = .seconds(5)
}

/// The built-in mock upstream that serves every pagination scheme.
struct MockConfig: Sendable, Equatable {
    var address: String
    var port: Int
    /// How many items each mock collection holds.
    var items: Int
    /// The page size when a request does not ask for one.
    var pageSize: Int
    /// Added before every response.
    var latency: Duration
}

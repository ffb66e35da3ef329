/// The disk cache of a ``PageProxyClient``: the same page cache the PageProxy server keeps.
///
/// Pages are stored under `directory`, keyed by the full URL and every header sent with it, written atomically and
/// checked when read back (a torn or corrupted entry is a miss). The cache holds at most `maxBytes`, evicting the
/// least recently used pages. A stored page is fresh for the upstream's `Cache-Control: max-age`, or for `ttl` when
/// the upstream says nothing; a stale page with validators is revalidated (`If-None-Match`, `If-Modified-Since`),
/// and a 304 refreshes it without downloading it again. Concurrent fetches of one page through one client make one
/// upstream request (they are collapsed), whichever walks they belong to.
public struct PageCacheOptions: Sendable, Equatable {
    /// The directory that holds the cache; created if missing. A directory that cannot be used leaves the client
    /// uncached rather than failing its walks.
    public var directory: String
    /// The most bytes the cache may hold on disk.
    public var maxBytes: Int
    /// How long a page stays fresh when the upstream gives no freshness of its own; `.zero` bypasses the cache.
    public var ttl: Duration
    /// Whether a stored page may answer when the upstream fails (an error, or a 5xx after the retries), unless the
    /// upstream marked it `must-revalidate`.
    public var staleIfError: Bool
    /// Whether even a fresh page is revalidated with the upstream before use (a client's `Cache-Control: no-cache`).
    public var forceRevalidate: Bool

    /// A cache under `directory`.
    /// - Parameters:
    ///   - directory: where the pages are stored.
    ///   - maxBytes: the bound on the bytes stored; 256 MiB by default.
    ///   - ttl: the freshness when the upstream gives none; 60 seconds by default.
    ///   - staleIfError: serve a stored page when the upstream fails; off by default.
    ///   - forceRevalidate: revalidate even fresh pages; off by default.
    public init(
        directory: String, maxBytes: Int = 256 << 20, ttl: Duration = .seconds(60), staleIfError: Bool = false,
        forceRevalidate: Bool = false
    ) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.ttl = ttl
        self.staleIfError = staleIfError
        self.forceRevalidate = forceRevalidate
    }

    var policy: CachePolicy {
        CachePolicy(ttl: ttl, staleIfError: staleIfError, forceRevalidate: forceRevalidate)
    }
}

extension PageProxyClient {
    /// Everything a ``PageProxyClient`` is made with: its transport, cache and retry policy.
    ///
    /// The defaults are those of a PageProxy route with no settings (three retries per walk, a walk timeout of five
    /// minutes), except the cache: a client has none unless you give it a directory.
    public struct Configuration: Sendable {
        /// How pages are fetched; PageProxy's HTTP/1.1 transport by default.
        public var transport: PageTransport
        /// The disk cache, or `nil` for none.
        public var cache: PageCacheOptions?
        /// When failed page requests are tried again; the budget is per walk.
        public var retry: RetryPolicy
        /// How long one walk may take in all; retries never wait past it.
        public var walkTimeout: Duration

        /// A configuration.
        /// - Parameters:
        ///   - transport: how pages are fetched; PageProxy's HTTP/1.1 transport by default.
        ///   - cache: the disk cache, `nil` (none) by default.
        ///   - retry: the retry policy; three retries per walk by default.
        ///   - walkTimeout: the time one walk may take in all; five minutes by default.
        public init(
            transport: PageTransport = .http1, cache: PageCacheOptions? = nil, retry: RetryPolicy = RetryPolicy(),
            walkTimeout: Duration = .seconds(300)
        ) {
            self.transport = transport
            self.cache = cache
            self.retry = retry
            self.walkTimeout = walkTimeout
        }
    }
}

import PageProxyCore
import PageProxyMock
import PageProxyServer
import Synchronization

/// A running PageProxy: the proxy server and, when the config asks for it, the built-in mock upstream beside it.
final class PageProxyApp: Sendable {
    let server: Server
    let mockServer: Server?
    let status: ServiceStatus
    let transport: HTTP1Transport
    /// The page cache (its store is nil when `cache.maxBytes` is 0).
    let pages: CachingPageSource
    private let logger: Logger

    /// Starts the mock (if configured) and then the proxy; both are listening when this returns.
    /// - Parameters:
    ///   - spool: where merged answers wait; by default files in `MergedSpool.directories(for:)`.
    ///   - clock: the process's clock, read by the page cache, the memo and the answers' freshness (tests move it).
    ///   - onCacheWrite: told as each cache write begins, on its disk thread (tests hold it there: a stalled disk).
    ///   - walkObserver: told each time a walk hands out a page, on the walk's task (tests hold a walk there).
    static func start(
        config: Config, logger: Logger, spool: MergedSpool? = nil, clock: PageProxyClock = .system,
        onCacheWrite: (@Sendable (CacheKey) -> Void)? = nil, walkObserver: (@Sendable (WalkRecord.Progress) -> Void)? = nil
    ) throws(SocketError) -> PageProxyApp {
        var mockServer: Server?
        if let mock = config.mock {
            mockServer = try startMock(mock, logger: logger)
        }
        let pages = makePageCache(config.cache, logger: logger, clock: clock, onWrite: onCacheWrite)
        let status = ServiceStatus(
            cacheRequired: config.cache.requiredForReadiness, cacheProblem: { pages.store?.disabledReason },
            cacheEvicting: { pages.store?.isEvictingAtStart == true })
        let transport = HTTP1Transport(pool: ConnectionPool(onUnsolicited: unsolicitedBytesWarning(logger: logger)))
        let metricsBox = MetricsConnectionCount()
        let budgets = makeBudgets(config)
        let metrics = Metrics(openConnections: { metricsBox.count() }, budgets: budgets, originsNotReused: { transport.pool.originsNotReused })
        metrics.observeLogger { logger.droppedLines }
        let responder = makeResponder(
            config: config, transport: transport, pages: pages, status: status, metrics: metrics, budgets: budgets, spool: spool,
            walkObserver: walkObserver, morePathWarnings: MorePathWarnings(logger: logger))
        let server = try Server(
            address: SocketAddress(host: config.listen.address, port: config.listen.port), limits: ServerLimits(config.server).fittingDescriptors(logger: logger),
            responder: responder, logger: logger, clock: clock)
        metricsBox.set { server.openConnections }
        status.markReady()
        warmUp(pages.store, bytes: config.cache.warmBytes, logger: logger)
        return PageProxyApp(server: server, mockServer: mockServer, status: status, transport: transport, pages: pages, logger: logger)
    }

    /// Reads the most recently used pages into the store's memory in the background, once the proxy listens
    /// (`cache.warmBytes`), and logs what it kept.
    static func warmUp(_ store: DiskStore?, bytes: Int, logger: Logger) {
        store?.warmUpInBackground(maxBytes: bytes) { done, duration in
            guard done.entries + done.skipped + done.answers > 0 else { return }
            logger.log(.info, "cache warmed", [
                ("entries", .int(done.entries)), ("bytes", .int(done.bytes)), ("skipped", .int(done.skipped)), ("answers", .int(done.answers)),
                ("duration_ms", .json(ServerTimingField.milliseconds(duration))),
            ])
        }
    }

    /// Starts the built-in mock upstream a config describes.
    static func startMock(_ mock: MockConfig, logger: Logger) throws(SocketError) -> Server {
        let options = MockUpstreamOptions(totalItems: mock.items, pageSize: mock.pageSize, latency: mock.latency)
        return try Server(
            address: SocketAddress(host: mock.address, port: mock.port), limits: ServerLimits(),
            // The mock's requests are the proxy's upstream traffic: at `debug`, not mixed into the proxy's `info` log.
            responder: MockHTTPResponder(mock: MockUpstream(options: options)), logger: logger, requestLogLevel: .debug)
    }

    /// DESIGN.md: one rate-limit budget per upstream origin, shared by every request of the process.
    static func makeBudgets(_ config: Config) -> OriginBudgets {
        OriginBudgets(config.routes.map { route in (route.upstream.origin, route.originBudget) })
    }

    /// What answers every request, with or without a server (`PageProxy fetch` calls it directly): the routes, the
    /// walk, the page cache, the memo and the budgets.
    /// - Parameter walkObserver: told each time a walk hands out a page.
    static func makeResponder(
        config: Config, transport: HTTP1Transport, pages: CachingPageSource, status: ServiceStatus, metrics: Metrics, budgets: OriginBudgets,
        spool: MergedSpool?, walkObserver: (@Sendable (WalkRecord.Progress) -> Void)? = nil, morePathWarnings: MorePathWarnings = .silent
    ) -> PageProxyResponder {
        // Memoized merged answers: `cache.memoBytes`, by default an eighth of the cache's bound, at most 64 MiB (none
        // when the cache is off).
        let memo = MergedAnswerMemo(maxBytes: config.cache.memoLimit, store: pages.store, clock: pages.clock)
        metrics.observeMemo { memo.chargedBytes }
        metrics.observePageCache { pages.pagesStaleByDate }
        metrics.observeCacheStore { pages.store }
        var aggregate = AggregateResponder(
            transport: RedirectingTransport(base: transport), pages: pages, metrics: metrics,
            spool: spool ?? MergedSpool(directories: MergedSpool.directories(for: config)), memo: memo, budgets: budgets,
            answerEntryWorth: config.cache.answerEntryWorth)
        aggregate.walkObserver = walkObserver
        aggregate.morePathWarnings = morePathWarnings
        if aggregate.merged.persisted != nil { AnswerEntryKey.prepare(config.routes) }
        return PageProxyResponder(router: Router(routes: config.routes), aggregate: aggregate, status: status, metrics: metrics)
    }

    /// The shared page cache; a directory that cannot be used is logged once and leaves the proxy uncached.
    static func makePageCache(
        _ config: CacheConfig, logger: Logger, clock: PageProxyClock = .system, onWrite: (@Sendable (CacheKey) -> Void)? = nil
    ) -> CachingPageSource {
        guard config.maxBytes > 0 else {
            logger.log(.info, "cache off", [("reason", "cache.maxBytes is 0")])
            return CachingPageSource(store: nil, clock: clock)
        }
        let store = DiskStore(directory: config.directory, maxBytes: config.maxBytes, onDisable: { reason in
            logger.log(.error, "cache disabled; serving uncached", [("reason", .string(reason))])
        }, onWriting: onWrite, onVolumeFull: volumeFullWarning(logger: logger, clock: clock), onEnable: {
            // Also for a directory unusable at the start: the index is built now, and `/readyz` is ready.
            logger.log(.info, "cache enabled again", [("directory", .string(config.directory))])
        }, retryInterval: config.retryInterval, heldFiles: config.sendsFromFiles ? .shared : .none,
           onStartEviction: startEvictionLog(logger: logger), onLinkedFolder: { folder in
            logger.log(.warning, "cache folder is a symbolic link: not used; pages whose keys fall under it are not cached", [
                ("folder", .string(folder)),
            ])
        }, onLockBusy: { lock in
            // attack17 M3: a peer frozen while it held the lock (`docker pause`, a debugger, a hung volume); or a long
            // eviction, this process's own among them (review25 L1): the words blame no one.
            logger.log(.warning, "the cache directory's lock was busy for over 1 s; pages are served unstored until it is free", [
                ("lock", .string(lock)),
            ])
        }, onUnwritableFolder: { folder in
            logger.log(.warning, "cache folder cannot be written: pages whose keys fall under it are not cached", [("folder", .string(folder))])
        })
        if store.isEnabled {
            logger.log(.info, "cache ready", [
                ("directory", .string(config.directory)), ("max_bytes", .int(config.maxBytes)), ("entries", .int(store.entryCount)),
                ("bytes", .int(store.totalBytes)),
            ])
        }
        return CachingPageSource(store: store, clock: clock) { origin, behind in
            // Once per origin per ten minutes, not per page (review9 G3: such an upstream had nothing cached, silently).
            logger.log(.warning, "upstream pages stale on arrival: their Date is behind this clock by more than their max-age, so none is served from the cache", [
                ("origin", .string(origin)), ("behind_seconds", .int(Int(behind.components.seconds))),
            ])
        }
    }

    /// What the connection pool tells the first time an upstream origin is caught sending bytes no request asked for
    /// (attack17 L2: a second response after each answer, read as the next page's): its connections are not reused.
    static func unsolicitedBytesWarning(logger: Logger) -> @Sendable (PageURL.Origin, ConnectionPool.UnsolicitedBytes) -> Void {
        { origin, seen in
            logger.log(.warning, "upstream sent bytes no request asked for (an unsolicited response); its connections are not reused from now on", [
                ("origin", .string(origin.description)), ("seen", .string(seen.rawValue)),
            ])
        }
    }

    /// What the store tells of the eviction of a cache found over its bound at the start, which runs after the proxy
    /// listens (attack15 M2: minutes of it before the port opened, not one log line).
    static func startEvictionLog(logger: Logger) -> @Sendable (CacheStartEviction) -> Void {
        { event in
            switch event {
            case .began(let entries, let bytes, let maxBytes):
                logger.log(.warning, "cache over its bound at start; evicting the oldest entries in the background (new pages are not stored until done)", [
                    ("entries", .int(entries)), ("bytes", .int(bytes)), ("max_bytes", .int(maxBytes)),
                ])
            case .ended(let entries, let bytes, let duration):
                logger.log(.info, "cache start-up eviction done", [
                    ("evicted_entries", .int(entries)), ("evicted_bytes", .int(bytes)),
                    ("duration_ms", .json(ServerTimingField.milliseconds(duration))),
                ])
            case .gaveUp(let duration):
                logger.log(.warning, "cache start-up eviction gave up: a lock of the cache directory stayed held for over a second (another process evicting, or one frozen); writes that find no room evict for themselves", [
                    ("duration_ms", .json(ServerTimingField.milliseconds(duration))),
                ])
            }
        }
    }

    /// What the store calls when a write finds the cache volume full: a warning at most once a minute, with the
    /// episodes since the last one (`evictions`: the times the volume was found full after a write had succeeded; a
    /// concurrent write that also evicts during one is not counted again, review14 F5). The cache goes on, evicting
    /// to make room.
    static func volumeFullWarning(logger: Logger, clock: PageProxyClock) -> @Sendable (String, Bool) -> Void {
        // Out of inodes is told as such: `df -h` shows the volume empty (attack13 L2).
        let messages = [
            false: "cache volume full; evicting the oldest entries to make room",
            true: "cache volume out of inodes (its space is not full); evicting the oldest entries and their empty directories",
        ]
        let notices = messages.mapValues { message in
            VolumeFullNotice { reason, evictions in
                logger.log(.warning, message, [("reason", .string(reason)), ("evictions", .int(evictions))])
            }
        }
        return { reason, outOfInodes in notices[outOfInodes]?.note(reason, at: clock.now()) }
    }

    private init(
        server: Server, mockServer: Server?, status: ServiceStatus, transport: HTTP1Transport, pages: CachingPageSource, logger: Logger
    ) {
        self.server = server
        self.mockServer = mockServer
        self.status = status
        self.transport = transport
        self.pages = pages
        self.logger = logger
    }

    /// Shuts down in the order a load balancer needs. Kubernetes removes a pod's endpoint while it sends SIGTERM, so
    /// for `drainDelay` the proxy still accepts and serves new connections (closing each after its answer) while
    /// `/readyz` answers 503; then it stops accepting and drains (`stop(grace:)`). Cancelling the calling task ends
    /// the delay early.
    func shutdown(drainDelay: Duration, grace: Duration) async {
        status.markDraining()
        server.closeAfterEachAnswer()
        if drainDelay > .zero { try? await Task.sleep(for: drainDelay) }
        logger.log(.info, "listener closed", [("open_connections", .int(server.openConnections))])
        await stop(grace: grace)
    }

    /// Drains: readiness turns false, no new connections, in-flight answers get up to `grace` to finish.
    func stop(grace: Duration) async {
        status.markDraining()
        await server.stop(grace: grace)
        await mockServer?.stop(grace: .zero)
        transport.pool.closeAll()
        // Writes the drained answers started finish, so that a clean exit leaves no temporary file (attack5 m3).
        if !(await pages.finishWrites(within: .seconds(5))) {
            logger.log(.warning, "cache writes still running at exit; their temporary files go at the next start", [])
        }
    }
}

/// Lets the metrics read the server's connection count although the server is made after them.
private final class MetricsConnectionCount: Sendable {
    private let source = Mutex<(@Sendable () -> Int)?>(nil)
    func set(_ read: @escaping @Sendable () -> Int) { source.withLock { $0 = read } }
    func count() -> Int { source.withLock { $0 }?() ?? 0 }
}

extension ServerLimits {
    init(_ config: ServerConfig) {
        self.init()
        maxConnections = config.maxConnections
        headerTimeout = config.headerTimeout
        idleTimeout = config.idleTimeout
        http.maxRequestLineBytes = config.maxRequestLineBytes
        http.maxHeaderBytes = config.maxHeaderBytes
        sendBufferBytes = config.sendBufferBytes > 0 ? config.sendBufferBytes : nil
        writeTimeout = config.writeTimeout
    }

    /// Lowers `maxConnections` to what fits below the descriptor line (`DescriptorReserve`, drawn by `serve`), with one
    /// warning naming both numbers: a client may hold an upstream connection too, and past the line the process
    /// refuses clients that it could otherwise not serve at all.
    func fittingDescriptors(logger: Logger) -> ServerLimits {
        let line = DescriptorReserve.current
        let fitting = DescriptorReserve.maxConnections(below: line)
        guard line < Int.max, fitting < maxConnections else { return self }
        logger.log(.warning, "server.maxConnections lowered to fit the open-file limit", [
            ("maxConnections", .int(maxConnections)), ("lowered_to", .int(fitting)),
            ("open_file_limit", .int(Int(OpenFileLimit.soft ?? 0))),
            ("hint", "raise the limit (ulimit -n, LimitNOFILE=, --ulimit nofile=) or lower server.maxConnections"),
        ])
        var limits = self
        limits.maxConnections = fitting
        return limits
    }
}

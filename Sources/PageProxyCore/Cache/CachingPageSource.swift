import Foundation
import Synchronization

/// Serves upstream pages from the disk cache, revalidating or fetching through the caller's transport when needed.
///
/// The transport is passed with each fetch because it belongs to one client request (its retry budget and
/// deadline); the store and the collapsing of concurrent fetches are shared by all requests. In order:
/// a fresh entry is a `hit`; otherwise one fetch per key runs (others join it), conditional when an entry with
/// validators exists: a 304 refreshes the entry (`revalidated`), a 200 replaces it (`miss`), and a failure (an
/// error, or a 5xx after the retries) serves the old entry if the policy allows (`stale`).
package final class CachingPageSource: Sendable {
    /// A page, where it came from, and which stored version it is.
    package struct Fetched: Sendable {
        package var response: UpstreamResponse
        package var outcome: CacheOutcome
        /// The version of the page in the store and until when it is fresh; nil when the page is not stored as served
        /// (no cache, `no-store`, too large, or a stale page served because the upstream failed).
        package var stored: StoredVersion?

        package init(response: UpstreamResponse, outcome: CacheOutcome, stored: StoredVersion? = nil) {
            self.response = response
            self.outcome = outcome
            self.stored = stored
        }
    }

    /// A page as the store holds it: what an answer built from it must check before it is served again.
    package struct StoredVersion: Sendable {
        package var stamp: PageStamp
        /// When it stops being fresh for the route that read it.
        package var freshUntil: Date
        /// The entry's own lifetime rule, for a route other than the one that read it (`judged(routeTTL:)`).
        package var storedAt: Date
        package var lifetimeFromUpstream: Bool
        /// The upstream said `Cache-Control: private`: an answer built from it says `private` too.
        package var isPrivate: Bool

        package init(stamp: PageStamp, freshUntil: Date, storedAt: Date, lifetimeFromUpstream: Bool, isPrivate: Bool = false) {
            self.stamp = stamp
            self.freshUntil = freshUntil
            self.storedAt = storedAt
            self.lifetimeFromUpstream = lifetimeFromUpstream
            self.isPrivate = isPrivate
        }

        /// The version of `entry` stamped `stamp`, fresh until `freshUntil` for the route that read it.
        init(stamp: PageStamp, entry: CacheEntry, freshUntil: Date) {
            self.init(
                stamp: stamp, freshUntil: freshUntil, storedAt: entry.storedAt, lifetimeFromUpstream: entry.lifetimeFromUpstream,
                isPrivate: entry.isPrivate)
        }

        /// As fresh as a route whose TTL is `routeTTL` may take it (`CacheEntry.freshUntil(routeTTL:)`): a request that
        /// joined another route's fetch judges the page by its own TTL, not by the one it was read or stored with.
        package func judged(routeTTL: Duration) -> StoredVersion {
            var judged = self
            judged.freshUntil = CacheEntry.freshUntil(freshUntil, storedAt: storedAt, lifetimeFromUpstream: lifetimeFromUpstream, routeTTL: routeTTL)
            return judged
        }
    }

    package let store: DiskStore?
    /// Where entries whose bytes must come from the disk are read: threads of Dispatch's own, which may block.
    private static let diskQueue = DispatchQueue(label: "PageProxy.cache.reads", attributes: .concurrent)
    private let coldReadCount = Mutex(0)
    /// How many times a walk asked for pages to be read ahead (tests: a walk asked, whether or not it ended before the
    /// read-ahead thread got to its pages).
    private let readAheadRequestCount = Atomic(0)
    /// How many of those have run, or were dropped because their walk had ended (tests: a sync wait for them).
    private let readAheadRunCount = Atomic(0)
    private typealias Flights = FetchCollapser<CacheKey, Result<CachedResponse, UpstreamError>>
    private let collapser = Flights()
    /// The flights of pages nothing is stored for (a route of `ttlSeconds: 0`, the cache off or disabled).
    private let uncachedFlights = Flights()
    /// Entries' freshness is measured on its wall side (entries outlive the process, so they carry dates), a
    /// request's deadline on its monotonic side; the memo and the answers' `Cache-Control` read the same clock.
    package let clock: PageProxyClock
    /// Where the store's writes and removals run (they block on the disk, and may evict): never the cooperative pool.
    private let diskWork: DiskWork
    /// The pages an upstream's `Date` made stale on arrival (`CacheFreshness.isStaleByDateAlone`), told once per
    /// origin per interval.
    private let staleByDate: StaleByDateNotice

    /// - Parameters:
    ///   - store: nil for no cache: every fetch is a `bypass`.
    ///   - clock: the process's clock (tests move it to make entries stale without waiting).
    ///   - diskWork: the threads that write to the store.
    ///   - onStaleByDate: told, once per origin per ten minutes, that an origin's pages were stale on arrival by their
    ///     `Date` alone, and how far behind it was (the proxy logs it).
    package init(
        store: DiskStore?, clock: PageProxyClock = .system, diskWork: DiskWork = DiskWork(),
        onStaleByDate: @escaping @Sendable (_ origin: String, _ behind: Duration) -> Void = { _, _ in }
    ) {
        self.store = store
        self.clock = clock
        self.diskWork = diskWork
        staleByDate = StaleByDateNotice(tell: onStaleByDate)
    }

    /// How many upstream pages were stale on arrival by their `Date` alone (`/metrics`).
    package var pagesStaleByDate: Int { staleByDate.count }

    /// The page for `request`, from the cache or from `transport`.
    /// - Parameters:
    ///   - scan: what the walk scans pages for: a page stored now is scanned (validated) once, and its scan kept with
    ///     it, so that the walker and every later hit use it instead of scanning again.
    ///   - onTry: told of each try sent for the page by a fetch this request led, as it ends (`UpstreamTry`): not of
    ///     the tries it joined (their leader's is), and also after this request left, while others wait.
    package func fetch(
        _ request: UpstreamRequest, policy: CachePolicy, transport: any UpstreamTransport, timeout: Duration, maxBodyBytes: Int,
        scan: ScanPaths? = nil, onTry: UpstreamTry.Report? = nil
    ) async throws(UpstreamError) -> Fetched {
        guard let store, store.isEnabled, policy.ttl > .zero, request.method == .get else {
            // RFC 9111 §5.2.1.7 — nothing stored to answer from (review9: this asked the upstream).
            if policy.onlyIfCached { throw .notCached(origin: request.url.origin.description) }
            guard request.method == .get else {
                // Not collapsed: the request's own, retried within the transport (no walk sends one), told as one try.
                let started = clock.now()
                do throws(UpstreamError) {
                    let response = try await transport.send(request, timeout: timeout, maxBodyBytes: maxBodyBytes)
                    onTry?(UpstreamTry(result: .success(response.status.code), duration: clock.now() - started, isRetry: false))
                    return Fetched(response: response, outcome: .bypass)
                } catch {
                    onTry?(UpstreamTry(result: .failure(error), duration: clock.now() - started, isRetry: false))
                    throw error
                }
            }
            // Nothing is stored, but concurrent requests for one page still make one upstream request (attack13: 200
            // clients of a ttl-0 route made 2,201 for 11 pages). Flights of their own: a request that stores nothing
            // must not be answered from the store by a cached route's flight.
            return try await collapsed(CacheKey(request), in: uncachedFlights, request: request, cached: nil, policy: policy,
                                       transport: transport, timeout: timeout, maxBodyBytes: maxBodyBytes) { flightDeadline, isRetry in
                await self.tried(request, via: transport, maxBodyBytes: maxBodyBytes, flight: flightDeadline, isRetry: isRetry, onTry: onTry)
                    .map { CachedResponse(Self.identified($0), .bypass) }
            }
        }
        let key = CacheKey(request)
        var found = await lookup(key, in: store, policy: policy)
        if let hit = hit(found, policy: policy) { return hit }
        // A body left in its file leaves here only as a hit (review16 B2): the revalidation, the stale answer and the
        // flight below need the bytes, so an entry found so but no hit (stale by now) is looked up again, body and all.
        if found?.entry.bodyInFile != nil {
            found = await lookup(key, in: store, policy: policy.readingWhole)
            if let hit = hit(found, policy: policy) { return hit }
        }
        // A stale copy kept in memory may be older than the file: a fresher version another process stored wins over
        // revalidating or serving this one (attack6 F4).
        if found != nil, store.fileWasReplaced(key) {
            found = await lookup(key, in: store, policy: policy.readingWhole)
            if let hit = hit(found, policy: policy) { return hit }
        }
        // An entry larger than the route's pages may be is not this route's to revalidate or serve stale (a 304 has
        // no body for the transport's limit to refuse): the route asks as if nothing were stored.
        // Never one without its body in memory (a 304 rewrites the entry, a stale answer is served whole).
        let cached = found.flatMap { $0.entry.bodyInFile == nil && $0.entry.body.count <= policy.maxBodyBytes ? $0.entry : nil }
        if policy.onlyIfCached {
            let age = found.map { max(0, Int(clock.wallNow().timeIntervalSince($0.entry.storedAt))) }
            throw .notCached(origin: request.url.origin.description, storedSecondsAgo: age)
        }
        return try await collapsed(key, in: collapser, request: request, cached: cached, policy: policy, transport: transport,
                                   timeout: timeout, maxBodyBytes: maxBodyBytes) { flightDeadline, isRetry in
            // A fetch that finished between the read above and this one stored the page: use it, not a second request.
            // Read whole: the flight's answer is shared with every request that joins it (an NDJSON walk's too).
            if let hit = self.hit(await self.lookup(key, in: store, policy: policy.readingWhole), policy: policy) {
                return .success(CachedResponse(fetched: hit))
            }
            let stores = policy.noStore ? nil : store
            // A second request of the same try (a 304 naming another version, asked again whole) is no retry.
            var retrying = isRetry
            return await self.refresh(
                key, cached: cached, request: request, scan: scan, store: stores, routeTTL: policy.ttl, flight: flightDeadline
            ) { request in
                defer { retrying = false }
                return await self.tried(request, via: transport, maxBodyBytes: maxBodyBytes, flight: flightDeadline, isRetry: retrying, onTry: onTry)
            }
        }
    }

    /// A page nothing stores (the cache off, a ttl-0 route, `no-store`), identified as a stored one is: by the XXH64 of
    /// its body, so that a merged answer's `ETag` depends on its bytes only, not on whether the cache was on for it
    /// (review15 R10, review20 L3: a replica with its cache disabled tagged the same answer otherwise).
    private static func identified(_ response: UpstreamResponse) -> UpstreamResponse {
        guard response.status.code == 200 else { return response }
        var identified = response
        identified.storedChecksum = XXHash64.hash(response.body)
        return identified
    }

    /// One try of `request` for a flight (`transport.attempt`), told to `onTry` once it was sent (one the origin's
    /// budget refused was not: no upstream request).
    private func tried(
        _ request: UpstreamRequest, via transport: any UpstreamTransport, maxBodyBytes: Int, flight: FlightDeadline, isRetry: Bool,
        onTry: UpstreamTry.Report?
    ) async -> Result<UpstreamResponse, UpstreamError> {
        guard let onTry else { return await transport.attempt(request, maxBodyBytes: maxBodyBytes, flight: flight) }
        let (started, sends) = (clock.now(), flight.sendCount)
        let result = await transport.attempt(request, maxBodyBytes: maxBodyBytes, flight: flight)
        guard flight.sendCount > sends else { return result }
        let now = clock.now()
        var told = result.map(\.status.code)
        // Cut because every request waiting for it left: a timeout when one of them had run out of time.
        if case .failure = result, Task.isCancelled {
            told = .failure(flight.outlivedAWaiter(at: now) ? .timedOut(origin: request.url.origin.description) : .cancelled)
        }
        onTry(UpstreamTry(result: told, duration: now - started, isRetry: isRetry))
        return result
    }

    /// `request`'s page from the one flight of `key` in `flights` (led or joined), with this request's own tries.
    /// - Parameter work: the flight's, should this request lead it; told whether this request had tried the page before.
    private func collapsed(
        _ key: CacheKey, in flights: Flights, request: UpstreamRequest, cached: CacheEntry?, policy: CachePolicy,
        transport: any UpstreamTransport, timeout: Duration, maxBodyBytes: Int,
        work: @escaping @Sendable (FlightDeadline, _ isRetry: Bool) async -> Result<CachedResponse, UpstreamError>
    ) async throws(UpstreamError) -> Fetched {
        // A request that joins another's fetch keeps its own limits (issue 13). A flight makes at most one upstream
        // request, not cut at any one request's deadline: it lives until the last request waiting for it gives up.
        // Each request counts the tries it saw, its own or joined, and retries with its own budget, backoff and
        // deadline (leading or joining the next flight); it serves a stale page by its own route's rule. It waits for a
        // try no longer than its own page timeout (from the try's sending, or its joining), as its own try would run;
        // the try lives for the longest of its waiters'.
        var (tries, storedMeanwhile, refusedForOthers) = (0, 0, 0)
        while true {
            let isRetry = tries > 0
            let result = await flight(
                for: key, in: flights, deadline: transport.deadline, pageTimeout: timeout, origin: request.url.origin, work: { await work($0, isRetry) })
            guard let result else {
                guard let deadline = transport.deadline, clock.now() >= deadline else { throw .cancelled }
                // Out of time is a failure the route's stale-if-error covers.
                if let stale = staleEntry(cached, policy: policy) { return Fetched(response: stale.response, outcome: .stale) }
                throw .timedOut(origin: request.url.origin.description)
            }
            if case .success(let answer) = result, !answer.askedUpstream {
                // Stored by another fetch since this request looked: no try of its own, but a request that must
                // revalidate asks again (a few times at most: it leads a flight as soon as none is under way).
                storedMeanwhile += 1
                guard policy.forceRevalidate, storedMeanwhile < Self.maxRoundsWithoutTry, !Task.isCancelled else {
                    // Found by the lookup of a flight another route may have led: taken by this route's limits too.
                    return try Self.taken(answer.fetched, policy: policy, maxBodyBytes: maxBodyBytes, origin: request.url.origin)
                }
                continue
            }
            // Refused by the smaller page size limit of another route that led the flight (routes on one upstream URL
            // share flights): no answer to this request, which asks for the page itself (review20 F3). Not a try of its
            // own: no retry spent, and a few rounds at most, as for a page stored meanwhile.
            if case .failure(.responseTooLarge(_, let limit)) = result, limit < maxBodyBytes {
                refusedForOthers += 1
                if refusedForOthers < Self.maxRoundsWithoutTry, !Task.isCancelled { continue }
            }
            tries += 1
            if !Task.isCancelled, await transport.retries(after: result.map(\.fetched.response), attempt: tries) { continue }
            return try served(result, cached: cached, policy: policy, maxBodyBytes: maxBodyBytes, origin: request.url.origin)
        }
    }

    /// The page for `request` when the store holds a fresh, valid entry that `policy` lets it use without asking the
    /// upstream, answered without suspending: a walk reads such pages in place, with no task per page (issue 13).
    /// Nil otherwise (no store, a miss, a torn or corrupt entry, a stale one, `no-cache` or `_fresh`): `fetch` decides.
    /// - Parameter key: `CacheKey(request)`, when the caller has it already (a plan's first page).
    package func freshHit(_ request: UpstreamRequest, key: CacheKey? = nil, policy: CachePolicy) -> Fetched? {
        guard store?.isEnabled == true, policy.ttl > .zero, !policy.forceRevalidate, request.method == .get else { return nil }
        return freshHit(key: key ?? CacheKey(request), policy: policy)
    }

    /// `freshHit` of the GET whose key is `key` (a walk's page: its key is its plan's), with no request built for it
    /// (issue 13, fifteenth pass: the request's URL and headers were copied for every page a walk read in place).
    package func freshHit(key: CacheKey, policy: CachePolicy) -> Fetched? {
        guard let store, store.isEnabled, policy.ttl > .zero, !policy.forceRevalidate else { return nil }
        let found = store.lookupInline(key, keepsFirstRead: policy.keepsFirstRead, leavesBodyFor: policy.leavesBodiesFor)
        guard case .found(let entry, let stamp) = found else { return nil }
        // One whose body was left in its file and is no hit is dropped: `fetch` looks it up again, body and all.
        return hit((entry, stamp), policy: policy)
    }

    /// Reads the entries of `requests` ahead of the lookups a walk is about to make, on a thread of its own (never
    /// the cooperative pool, never the caller's), when the store and `policy` would serve them as hits: the walk's
    /// lookups then take them read and verified (`DiskStore.readAhead`; issue 13, read-back after a restart).
    /// `requests` is called on that thread too (building URLs and keys is work the walk need not do), and the keys
    /// it computes are remembered (`CacheKeyMemo`) for the walk's lookups. Returns at once. Once `cancellation` is
    /// cancelled (the walk ended), nothing more is read for it: not queued reads, nor the rest of one under way.
    package func readAhead(
        policy: CachePolicy, cancellation: ReadAheadCancellation? = nil, _ requests: @escaping @Sendable () -> [UpstreamRequest]
    ) {
        read(policy: policy, cancellation: cancellation) { AnySequence(requests().lazy.filter { $0.method == .get }.map { CacheKey($0) }) }
    }

    /// As `readAhead(policy:cancellation:_:)`, for the GET requests of `urls`, a walk's pages numbered from
    /// `firstNumber`, keyed by its plan's table (`keys`: issue 13, eighth pass, a whole template was built here for
    /// each page). Each key is kept in the table, where the walk looks for it: a walk that comes after the read-ahead
    /// finds each key by a comparison of its URL (issue 13, eleventh pass: after a restart the walk and the read-ahead
    /// both worked out every key, ~15 % of the walk's thread). Each is worked out as the read-ahead comes to it, not
    /// all of them first: the first file is read after one key, not after a whole telling's (issue 13, twelfth pass:
    /// 64 digests first, and the walk had read the first pages itself by the time the read-ahead began).
    package func readAhead(
        policy: CachePolicy, cancellation: ReadAheadCancellation? = nil, keys: CacheKeyPages, firstNumber: Int,
        _ urls: @escaping @Sendable () -> [PageURL]
    ) {
        read(policy: policy, cancellation: cancellation) {
            AnySequence(urls().enumerated().lazy.map { keys.key(for: $0.element, number: firstNumber + $0.offset) })
        }
    }

    private func read(
        policy: CachePolicy, cancellation: ReadAheadCancellation?, _ keys: @escaping @Sendable () -> AnySequence<CacheKey>
    ) {
        guard let store, store.isEnabled, policy.ttl > .zero, !policy.forceRevalidate else { return }
        let (asked, clock) = (store.useCount, clock)
        readAheadRequestCount.add(1, ordering: .relaxed)
        Self.readAheadQueue.async { [self] in
            defer { readAheadRunCount.add(1, ordering: .releasing) }
            guard cancellation?.isCancelled != true else { return }
            // Only fresh entries are held: a stale one is read again by the fetch that revalidates it.
            store.readAhead(
                keys(), unusedSince: asked,
                keep: { entry in policy.servesFresh(entry, at: clock.wallNow()) != nil }, until: { cancellation?.isCancelled == true },
                leavesBodyFor: policy.leavesBodiesFor)
        }
    }

    /// Returns once the read-aheads asked so far have run (tests; nothing else needs to). Suspends, never blocks.
    package func waitForReadAhead() async {
        await withCheckedContinuation { continuation in Self.readAheadQueue.async { continuation.resume() } }
    }

    /// Where entries are read ahead: one thread (on 2 cores a second one only competes with the walk and its client).
    private static let readAheadQueue = DispatchQueue(label: "PageProxy.cache.readAhead")

    /// How many entries were read off the cooperative pool because their bytes were not in memory.
    package var coldReads: Int { coldReadCount.withLock { $0 } }

    /// How many times `readAhead` was asked (and would have queued a read).
    package var readAheadRequests: Int { readAheadRequestCount.load(ordering: .relaxed) }

    /// How many read-aheads asked have run (or were dropped): every one asked so far once it reaches `readAheadRequests`.
    package var readAheadsRun: Int { readAheadRunCount.load(ordering: .acquiring) }

    /// The entry for `key`: read inline when its bytes are in memory (the page cache included), otherwise on
    /// `diskQueue`, so that a thread of the cooperative pool never waits for the disk.
    private func lookup(_ key: CacheKey, in store: DiskStore, policy: CachePolicy) async -> (entry: CacheEntry, stamp: PageStamp)? {
        let (keeps, leaves) = (policy.keepsFirstRead, policy.leavesBodiesFor)
        switch store.lookupInline(key, keepsFirstRead: keeps, leavesBodyFor: leaves) {
        case .found(let entry, let stamp): return (entry, stamp)
        case .missing: return nil
        case .wouldBlock:
            coldReadCount.withLock { $0 += 1 }
            return await withCheckedContinuation { continuation in
                Self.diskQueue.async { continuation.resume(returning: store.lookup(key, keepsFirstRead: keeps, leavesBodyFor: leaves)) }
            }
        }
    }

    /// `found` as a hit, when it is fresh for the route's TTL, within its page size, and `policy` does not force a
    /// revalidation (routes on the same upstream URL share entries: each judges them by its own limits).
    private func hit(_ found: (entry: CacheEntry, stamp: PageStamp)?, policy: CachePolicy) -> Fetched? {
        guard let (entry, stamp) = found, let freshUntil = policy.servesFresh(entry, at: clock.wallNow()) else { return nil }
        return Fetched(response: entry.response, outcome: .hit, stored: StoredVersion(stamp: stamp, entry: entry, freshUntil: freshUntil))
    }

    /// How many requests wait for fetches now, of every page (tests: a request has joined).
    package func waiterCount() async -> Int {
        await collapser.waiterCount + uncachedFlights.waiterCount
    }

    /// How many requests wait for `request`'s fetch now (tests: a request has joined).
    package func waiterCount(for request: UpstreamRequest) async -> Int {
        let key = CacheKey(request)
        return await collapser.waiterCount(for: key) + uncachedFlights.waiterCount(for: key)
    }

    /// How many times a request that must revalidate takes a page another fetch stored meanwhile as not enough,
    /// at most, before it is served that page.
    static let maxRoundsWithoutTry = 4

    /// How a caller's wait for a flight ended.
    private enum FlightWait: Sendable {
        case answered(Result<CachedResponse, UpstreamError>?)
        case pageTimedOut
        case deadlinePassed
    }

    /// The result of the one fetch of `key` (started now or joined): nil if this caller was cancelled or its
    /// `deadline` passed first; a timeout if its page time ended first (`FlightWaiter`: `pageTimeout` from the try's
    /// sending, or from this caller's joining a try already sent), as its own try would have. Leaving stops this
    /// caller's wait, and the fetch if no one else waits. The fetch is handed the latest deadline among its callers.
    private func flight(
        for key: CacheKey, in collapser: Flights, deadline: ContinuousClock.Instant?, pageTimeout: Duration, origin: PageURL.Origin,
        work: @escaping @Sendable (FlightDeadline) async -> Result<CachedResponse, UpstreamError>
    ) async -> Result<CachedResponse, UpstreamError>? {
        let clock = self.clock
        let waiter = FlightWaiter(pageTimeout: pageTimeout, clock: clock)
        let ended = await withTaskGroup(of: FlightWait?.self) { group in
            group.addTask { .answered(await collapser.value(for: key, until: deadline, as: waiter, work: work).value) }
            group.addTask {
                guard let end = await waiter.pageTimeEnd(), (try? await clock.sleep(end)) != nil else { return nil }
                return .pageTimedOut
            }
            if let deadline {
                group.addTask { (try? await clock.sleep(deadline)) != nil ? .deadlinePassed : nil }
            }
            // A timer ends with nil only when this caller is cancelled; its wait in the collapser then ends too.
            var first: FlightWait?
            while first == nil, let next = await group.next() { first = next }
            group.cancelAll()
            return first
        }
        switch ended {
        case .answered(let result): return result
        case .pageTimedOut: return .failure(.timedOut(origin: origin.description))
        case .deadlinePassed, nil: return nil
        }
    }

    /// What a request serves once its tries are over: the last one's answer, or a stale page where its route allows
    /// one for a failure (an error or a 5xx), or the error.
    private func served(
        _ result: Result<CachedResponse, UpstreamError>, cached: CacheEntry?, policy: CachePolicy, maxBodyBytes: Int, origin: PageURL.Origin
    ) throws(UpstreamError) -> Fetched {
        switch result {
        case .success(let answer):
            let failed = answer.fetched.outcome == .miss && answer.fetched.response.status.code >= 500
            if failed, let stale = staleEntry(cached, policy: policy) { return Fetched(response: stale.response, outcome: .stale) }
            return try Self.taken(answer.fetched, policy: policy, maxBodyBytes: maxBodyBytes, origin: origin)
        case .failure(let error):
            if let stale = staleEntry(cached, policy: policy) { return Fetched(response: stale.response, outcome: .stale) }
            throw error
        }
    }

    /// A page a flight brought, as this request takes it: the flight may have been another route's, run with its
    /// limits (review): no larger than this route's pages may be, and fresh no longer than its TTL allows (the
    /// answer's `Cache-Control` and the memo follow it).
    private static func taken(_ fetched: Fetched, policy: CachePolicy, maxBodyBytes: Int, origin: PageURL.Origin) throws(UpstreamError) -> Fetched {
        let limit = min(maxBodyBytes, policy.maxBodyBytes)
        guard fetched.response.bodyCount <= limit else { throw .responseTooLarge(origin: origin.description, limit: limit) }
        var taken = fetched
        taken.stored = fetched.stored?.judged(routeTTL: policy.ttl)
        return taken
    }

    /// One upstream request for `key`: conditional if `cached` has validators; stores what it may in `store` (nil:
    /// the client said `no-store`, nothing is written nor removed). A failure is returned as it is: each request
    /// waiting for it decides whether to retry or serve a stale page.
    private func refresh(
        _ key: CacheKey, cached: CacheEntry?, request: UpstreamRequest, scan: ScanPaths?, store: DiskStore?, routeTTL: Duration,
        flight: FlightDeadline, send: (UpstreamRequest) async -> Result<UpstreamResponse, UpstreamError>
    ) async -> Result<CachedResponse, UpstreamError> {
        var conditional = request
        if let cached {
            // RFC 9110 §13.1 — ask the upstream to answer 304 if the stored page is still current.
            if let etag = cached.headers["ETag"] { conditional.headers.set("If-None-Match", etag) }
            if let modified = cached.headers["Last-Modified"] { conditional.headers.set("If-Modified-Since", modified) }
        }
        var response: UpstreamResponse
        switch await send(conditional) {
        case .success(let answer): response = answer
        case .failure(let error): return .failure(error)
        }
        var cached = cached
        if response.status.code == 304, let entry = cached, !entry.isNamed(byNotModified: response.headers) {
            // RFC 9111 §4.3.4 — a 304 naming another representation updates no stored one (attack6 F8: it relabelled
            // the page): the page is asked for again, unconditionally, once.
            cached = nil
            switch await send(request) {
            case .success(let answer): response = answer
            case .failure(let error): return .failure(error)
            }
        }
        let received = clock.wallNow()
        if response.status.code == 304, var entry = cached {
            entry.merge304Headers(response.headers)
            var headers = entry.headers
            // The 304's own age and date (RFC 9111 §4.2.3): neither is stored with the entry.
            for name in ["Age", "Date"] { if let value = response.headers[name] { headers.set(name, value) } }
            let freshness = CacheFreshness(headers: headers, routeTTL: routeTTL, now: received)
            noteStaleByDate(freshness, origin: request.url.origin)
            if freshness.isStorable {
                entry.storedAt = received
                entry.freshUntil = received.addingTimeInterval(freshness.lifetime.timeInterval)
                entry.mustRevalidate = freshness.mustRevalidate
                entry.lifetimeFromUpstream = freshness.lifetimeFromUpstream
                entry.initialAge = freshness.initialAge
                if let scan, entry.scan?.signature != scan.signature { entry.scan = Self.scan(entry.body, for: scan) }
                let stored = await write(entry, for: key, to: store, unless: flight)
                return .success(CachedResponse(entry.response, .revalidated, stored: stored))
            }
            await remove(key, from: store, unless: flight)
            return .success(CachedResponse(entry.response, .revalidated))
        }
        if response.status.code == 200 {
            let freshness = CacheFreshness(headers: response.headers, routeTTL: routeTTL, now: received)
            noteStaleByDate(freshness, origin: request.url.origin)
            if var entry = CacheFreshness.entry(for: response, freshness: freshness, now: received) {
                entry.scan = scan.flatMap { Self.scan(entry.body, for: $0) }
                // A page that is not JSON for the walk (an HTML error page a middlebox sent with 200, a glitch) is not
                // stored: this walk reports it, and the next one asks the upstream again instead of failing for the
                // page's whole lifetime. The version stored before stays: it may be another route's good page (its
                // items elsewhere), and a stale one is revalidated before it is served.
                guard scan == nil || entry.scan != nil else { return .success(CachedResponse(response, .miss)) }
                let stored = await write(entry, for: key, to: store, unless: flight)
                var served = response
                served.storedChecksum = entry.bodyChecksum
                served.storedScan = entry.scan
                return .success(CachedResponse(served, .miss, stored: stored))
            }
            await remove(key, from: store, unless: flight)
            // Not stored (`no-store`): identified by its bytes all the same, as on a replica whose cache is off (review20 L3).
            return .success(CachedResponse(Self.identified(response), .miss))
        }
        return .success(CachedResponse(response, .miss))
    }

    /// Counts a page that `freshness` says its `Date` alone made stale (review9 G3), with how far that was behind.
    private func noteStaleByDate(_ freshness: CacheFreshness, origin: PageURL.Origin) {
        // A page never stored (`no-store`) loses nothing to it. The `Date` was parsed by `CacheFreshness` (review10).
        guard let behind = freshness.staleByDateBehind, freshness.isStorable else { return }
        staleByDate.note(origin: origin.description, behind: behind, at: clock.now())
    }

    /// Removes `key`'s entry on a disk lane, when there may be one: a page that is never stored (`no-store`) costs
    /// no hop off the pool and no directory lock. Also once the exit began (`DiskWork.finish`): a page the upstream
    /// disowned must not be served after the restart (review9 G5).
    /// - Parameter flight: the flight that asked; nothing is removed once a newer flight of `key` started (its answer rules).
    private func remove(_ key: CacheKey, from store: DiskStore?, unless flight: FlightDeadline? = nil) async {
        guard let store, store.mayHold(key) else { return }
        _ = await diskWork.run(evenAfterFinish: true, for: key) {
            guard flight?.isSuperseded != true else { return }
            store.remove(key)
        }
    }

    /// Writes `entry` on a disk lane; the version stored, or nil when it was not stored (or the exit began).
    /// - Parameter flight: the flight that fetched it; nothing is written once a newer flight of `key` started: asked
    ///   earlier, its answer may land later and would replace a newer version, fresh for a whole lifetime (review15
    ///   B1). Checked on the key's lane, where the newer flight's write queues behind this one.
    private func write(_ entry: CacheEntry, for key: CacheKey, to store: DiskStore?, unless flight: FlightDeadline) async -> StoredVersion? {
        guard let store else { return nil }
        guard let written = await diskWork.run(for: key, { flight.isSuperseded ? nil : store.write(entry, for: key) }) else {
            // Not started, the exit began: the version stored is no longer what the upstream says, and goes, as when a
            // write fails (`DiskStore.write`), rather than be served after the restart (review9 G5).
            await remove(key, from: store)
            return nil
        }
        return written.map { StoredVersion(stamp: $0, entry: entry, freshUntil: entry.freshUntil) }
    }

    /// The scan of a page about to be stored; nil when it is not valid JSON for `paths` (the walker, scanning it
    /// itself, reports why).
    private static func scan(_ body: [UInt8], for paths: ScanPaths) -> StoredScan? {
        guard let page = try? paths.scan(body) else { return nil }
        return StoredScan(page, for: paths, body: body)
    }

    /// Waits for the store's writes and removals under way (a clean exit), at most `timeout`; true when they finished.
    package func finishWrites(within timeout: Duration) async -> Bool {
        await diskWork.finish(within: timeout)
    }

    /// The entry to serve when the upstream failed, if the route allows it and the upstream did not forbid it.
    private func staleEntry(_ cached: CacheEntry?, policy: CachePolicy) -> CacheEntry? {
        guard policy.staleIfError, let cached, !cached.mustRevalidate else { return nil }
        return cached
    }
}

/// A fetch's result as the collapser hands it to every caller that waited for it.
private struct CachedResponse: Sendable {
    let fetched: CachingPageSource.Fetched
    /// Whether the fetch asked the upstream (a try for every request waiting for it), not found the page stored.
    let askedUpstream: Bool

    /// A page another fetch stored meanwhile.
    init(fetched: CachingPageSource.Fetched) {
        self.fetched = fetched
        askedUpstream = false
    }

    /// The upstream's answer.
    init(_ response: UpstreamResponse, _ outcome: CacheOutcome, stored: CachingPageSource.StoredVersion? = nil) {
        fetched = CachingPageSource.Fetched(response: response, outcome: outcome, stored: stored)
        askedUpstream = true
    }
}

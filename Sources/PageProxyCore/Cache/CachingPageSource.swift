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
    let coldReadCount = Mutex(0)
    /// How many times a walk asked for pages to be read ahead (tests: a walk asked, whether or not it ended before the
    /// read-ahead thread got to its pages).
    let readAheadRequestCount = Atomic(0)
    /// How many of those have run, or were dropped because their walk had ended (tests: a sync wait for them).
    let readAheadRunCount = Atomic(0)
    typealias Flights = FetchCollapser<CacheKey, Result<CachedResponse, UpstreamError>>
    private let collapser = Flights()
    /// The flights of pages nothing is stored for (a route of `ttlSeconds: 0`, the cache off or disabled).
    private let uncachedFlights = Flights()
    /// Entries' freshness is measured on its wall side (entries outlive the process, so they carry dates), a
    /// request's deadline on its monotonic side; the memo and the answers' `Cache-Control` read the same clock.
    package let clock: PageProxyClock
    /// Where the store's writes and removals run (they block on the disk, and may evict): never the cooperative pool.
    let diskWork: DiskWork
    /// The pages an upstream's `Date` made stale on arrival (`CacheFreshness.isStaleByDateAlone`), told once per
    /// origin per interval.
    let staleByDate: StaleByDateNotice

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
    static func identified(_ response: UpstreamResponse) -> UpstreamResponse {
        guard response.status.code == 200 else { return response }
        var identified = response
        identified.storedChecksum = XXHash64.hash(response.body)
        return identified
    }

    /// The page for `request` when the store holds a fresh, valid entry that `policy` lets it use without asking the
    /// upstream, answered without suspending: a walk reads such pages in place, with no task per page (issue 13).
    /// Nil otherwise (no store, a miss, a torn or corrupt entry, a stale one, `no-cache` or `_fresh`): `fetch` decides.
    /// - Parameter key: `CacheKey(request)`, when the caller has it already (a plan's first page).
    package func freshHit(_ request: UpstreamRequest, key: CacheKey? = nil, policy: CachePolicy, tally: FileReadTally? = nil) -> Fetched? {
        guard store?.isEnabled == true, policy.ttl > .zero, !policy.forceRevalidate, request.method == .get else { return nil }
        return freshHit(key: key ?? CacheKey(request), policy: policy, tally: tally)
    }

    /// `freshHit` of the GET whose key is `key` (a walk's page: its key is its plan's), with no request built for it
    /// (issue 13, fifteenth pass: the request's URL and headers were copied for every page a walk read in place).
    /// - Parameter tally: told when the lookup reads the entry's file.
    package func freshHit(key: CacheKey, policy: CachePolicy, tally: FileReadTally? = nil) -> Fetched? {
        guard let store, store.isEnabled, policy.ttl > .zero, !policy.forceRevalidate else { return nil }
        let found = store.lookupInline(key, keepsFirstRead: policy.keepsFirstRead, leavesBodyFor: policy.leavesBodiesFor, tally: tally)
        guard case .found(let entry, let stamp) = found else { return nil }
        // One whose body was left in its file and is no hit is dropped: `fetch` looks it up again, body and all.
        return hit((entry, stamp), policy: policy)
    }

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
    /// - Parameter now: the time it is judged at; nil: now on the clock.
    func hit(_ found: (entry: CacheEntry, stamp: PageStamp)?, policy: CachePolicy, at now: Date? = nil) -> Fetched? {
        guard let (entry, stamp) = found, let freshUntil = policy.servesFresh(entry, at: now ?? clock.wallNow()) else { return nil }
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
}

/// A fetch's result as the collapser hands it to every caller that waited for it.
struct CachedResponse: Sendable {
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

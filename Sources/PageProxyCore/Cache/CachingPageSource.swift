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
        package var freshUntil: Date
    }

    package let store: DiskStore?
    /// Where entries whose bytes must come from the disk are read: threads of Dispatch's own, which may block.
    private static let diskQueue = DispatchQueue(label: "PageProxy.cache.reads", attributes: .concurrent)
    private let coldReadCount = Mutex(0)
    /// How many times a walk asked for pages to be read ahead (tests: a walk asked, whether or not it ended before the
    /// read-ahead thread got to its pages).
    private let readAheadRequestCount = Atomic(0)
    private let collapser = FetchCollapser<CacheKey, Result<CachedResponse, UpstreamError>>()
    /// Entries' freshness is measured on its wall side (entries outlive the process, so they carry dates), a
    /// request's deadline on its monotonic side; the memo and the answers' `Cache-Control` read the same clock.
    package let clock: PageProxyClock
    /// Where the store's writes and removals run (they block on the disk, and may evict): never the cooperative pool.
    private let diskWork: DiskWork

    /// - Parameters:
    ///   - store: nil for no cache: every fetch is a `bypass`.
    ///   - clock: the process's clock (tests move it to make entries stale without waiting).
    ///   - diskWork: the threads that write to the store.
    package init(store: DiskStore?, clock: PageProxyClock = .system, diskWork: DiskWork = DiskWork()) {
        self.store = store
        self.clock = clock
        self.diskWork = diskWork
    }

    /// The page for `request`, from the cache or from `transport`.
    /// - Parameter scan: what the walk scans pages for: a page stored now is scanned (validated) once, and its scan
    ///   kept with it, so that the walker and every later hit use it instead of scanning again.
    package func fetch(
        _ request: UpstreamRequest, policy: CachePolicy, transport: any UpstreamTransport, timeout: Duration, maxBodyBytes: Int,
        scan: ScanPaths? = nil
    ) async throws(UpstreamError) -> Fetched {
        guard let store, store.isEnabled, policy.ttl > .zero, request.method == .get else {
            return Fetched(response: try await transport.send(request, timeout: timeout, maxBodyBytes: maxBodyBytes), outcome: .bypass)
        }
        let key = CacheKey(request)
        let found = await lookup(key, in: store, policy: policy)
        // An entry larger than the route's pages may be is not this route's to revalidate or serve stale (a 304 has
        // no body for the transport's limit to refuse): the route asks as if nothing were stored.
        let cached = found?.entry.body.count ?? 0 <= policy.maxBodyBytes ? found?.entry : nil
        if let hit = hit(found, policy: policy) { return hit }
        // A request that joins another's fetch keeps its own limits (issue 13): it stops waiting at its own deadline,
        // and when that fetch ends in what its limits did not allow (a failure, a status still worth retrying, a
        // stale page this request may not take), it fetches again with its own retry budget, joining at most a few
        // more flights before it leads one of its own.
        for round in 1... {
            let (result, joined) = await flight(for: key, deadline: transport.deadline) {
                // A fetch that finished between the read above and this one stored the page: use it, not a second request.
                if let hit = self.hit(await self.lookup(key, in: store, policy: policy), policy: policy) {
                    return .success(CachedResponse(fetched: hit))
                }
                return await self.refresh(key, cached: cached, request: request, policy: policy, scan: scan, store: store) {
                    request async throws(UpstreamError) in
                    try await transport.send(request, timeout: timeout, maxBodyBytes: maxBodyBytes)
                }
            }
            guard let result else {
                if let deadline = transport.deadline, clock.now() >= deadline { throw .timedOut(origin: request.url.origin.description) }
                throw .cancelled
            }
            if joined, round < Self.maxJoinedRounds, !Self.isFinal(result, for: policy), !Task.isCancelled,
                transport.deadline.map({ clock.now() < $0 }) ?? true
            {
                continue
            }
            return try result.get().fetched
        }
        throw .cancelled
    }

    /// The page for `request` when the store holds a fresh, valid entry that `policy` lets it use without asking the
    /// upstream, answered without suspending: a walk reads such pages in place, with no task per page (issue 13).
    /// Nil otherwise (no store, a miss, a torn or corrupt entry, a stale one, `no-cache` or `_fresh`): `fetch` decides.
    /// - Parameter key: `CacheKey(request)`, when the caller has it already (a plan's first page).
    package func freshHit(_ request: UpstreamRequest, key: CacheKey? = nil, policy: CachePolicy) -> Fetched? {
        guard let store, store.isEnabled, policy.ttl > .zero, !policy.forceRevalidate, request.method == .get else { return nil }
        guard case .found(let entry, let stamp) = store.lookupInline(key ?? CacheKey(request), keepsFirstRead: policy.keepsFirstRead) else {
            return nil
        }
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
        guard let store, store.isEnabled, policy.ttl > .zero, !policy.forceRevalidate else { return }
        let (asked, clock) = (store.useCount, clock)
        readAheadRequestCount.add(1, ordering: .relaxed)
        Self.readAheadQueue.async {
            guard cancellation?.isCancelled != true else { return }
            // Only fresh entries are held: a stale one is read again by the fetch that revalidates it.
            store.readAhead(
                requests().lazy.filter { $0.method == .get }.map { CacheKey($0) }, unusedSince: asked,
                keep: { entry in policy.servesFresh(entry, at: clock.wallNow()) != nil }, until: { cancellation?.isCancelled == true })
        }
    }

    /// Waits until the read-aheads asked so far have run (tests; nothing else needs to).
    package func waitForReadAhead() {
        Self.readAheadQueue.sync {}
    }

    /// Where entries are read ahead: one thread (on 2 cores a second one only competes with the walk and its client).
    private static let readAheadQueue = DispatchQueue(label: "PageProxy.cache.readAhead")

    /// How many entries were read off the cooperative pool because their bytes were not in memory.
    package var coldReads: Int { coldReadCount.withLock { $0 } }

    /// How many times `readAhead` was asked (and would have queued a read).
    package var readAheadRequests: Int { readAheadRequestCount.load(ordering: .relaxed) }

    /// The entry for `key`: read inline when its bytes are in memory (the page cache included), otherwise on
    /// `diskQueue`, so that a thread of the cooperative pool never waits for the disk.
    private func lookup(_ key: CacheKey, in store: DiskStore, policy: CachePolicy) async -> (entry: CacheEntry, stamp: PageStamp)? {
        let keeps = policy.keepsFirstRead
        switch store.lookupInline(key, keepsFirstRead: keeps) {
        case .found(let entry, let stamp): return (entry, stamp)
        case .missing: return nil
        case .wouldBlock:
            coldReadCount.withLock { $0 += 1 }
            return await withCheckedContinuation { continuation in
                Self.diskQueue.async { continuation.resume(returning: store.lookup(key, keepsFirstRead: keeps)) }
            }
        }
    }

    /// `found` as a hit, when it is fresh for the route's TTL, within its page size, and `policy` does not force a
    /// revalidation (routes on the same upstream URL share entries: each judges them by its own limits).
    private func hit(_ found: (entry: CacheEntry, stamp: PageStamp)?, policy: CachePolicy) -> Fetched? {
        guard let (entry, stamp) = found, let freshUntil = policy.servesFresh(entry, at: clock.wallNow()) else { return nil }
        return Fetched(response: entry.response, outcome: .hit, stored: StoredVersion(stamp: stamp, freshUntil: freshUntil))
    }

    /// How many flights of others' a request joins, at most, before the result of the last one is its own.
    static let maxJoinedRounds = 4

    /// The result of the one fetch of `key` (started now or joined), nil if this caller was cancelled or its
    /// `deadline` passed first; and whether it joined a fetch another caller started.
    private func flight(
        for key: CacheKey, deadline: ContinuousClock.Instant?, work: @escaping @Sendable () async -> Result<CachedResponse, UpstreamError>
    ) async -> (Result<CachedResponse, UpstreamError>?, joined: Bool) {
        guard let deadline else { return await collapser.value(for: key, work: work) }
        let (collapser, clock) = (self.collapser, self.clock)
        return await withTaskGroup(of: (Result<CachedResponse, UpstreamError>?, joined: Bool)?.self) { group in
            group.addTask { await collapser.value(for: key, work: work) }
            group.addTask {
                // The deadline: leaving the collapser stops this caller's wait (and the fetch, if no one else waits).
                try? await clock.sleep(deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? (nil, false)
        }
    }

    /// Whether a fetch's result stands for a request with `policy`, or it should try again with its own limits.
    private static func isFinal(_ result: Result<CachedResponse, UpstreamError>, for policy: CachePolicy) -> Bool {
        guard case .success(let cached) = result else { return false }
        switch cached.fetched.outcome {
        case .stale: return policy.staleIfError
        case .hit: return !policy.forceRevalidate
        case .miss, .revalidated, .bypass: return !RetryPolicy.retryableStatuses.contains(cached.fetched.response.status.code)
        }
    }

    /// One upstream request for `key`: conditional if `cached` has validators; stores what it may.
    private func refresh(
        _ key: CacheKey, cached: CacheEntry?, request: UpstreamRequest, policy: CachePolicy, scan: ScanPaths?, store: DiskStore,
        send: (UpstreamRequest) async throws(UpstreamError) -> UpstreamResponse
    ) async -> Result<CachedResponse, UpstreamError> {
        var conditional = request
        if let cached {
            // RFC 9110 §13.1 — ask the upstream to answer 304 if the stored page is still current.
            if let etag = cached.headers["ETag"] { conditional.headers.set("If-None-Match", etag) }
            if let modified = cached.headers["Last-Modified"] { conditional.headers.set("If-Modified-Since", modified) }
        }
        let response: UpstreamResponse
        do {
            response = try await send(conditional)
        } catch {
            if let stale = staleEntry(cached, policy: policy) { return .success(CachedResponse(stale.response, .stale)) }
            return .failure(error)
        }
        let received = clock.wallNow()
        if response.status.code == 304, var entry = cached {
            entry.merge304Headers(response.headers)
            var headers = entry.headers
            if let age = response.headers["Age"] { headers.set("Age", age) }
            let freshness = CacheFreshness(headers: headers, routeTTL: policy.ttl)
            if freshness.isStorable {
                entry.storedAt = received
                entry.freshUntil = received.addingTimeInterval(freshness.lifetime.timeInterval)
                entry.mustRevalidate = freshness.mustRevalidate
                entry.lifetimeFromUpstream = freshness.lifetimeFromUpstream
                if let scan, entry.scan?.signature != scan.signature { entry.scan = Self.scan(entry.body, for: scan) }
                let stored = await write(entry, for: key, to: store)
                return .success(CachedResponse(entry.response, .revalidated, stored: stored))
            }
            await remove(key, from: store)
            return .success(CachedResponse(entry.response, .revalidated))
        }
        if response.status.code >= 500, let stale = staleEntry(cached, policy: policy) {
            return .success(CachedResponse(stale.response, .stale))
        }
        if response.status.code == 200 {
            if var entry = CacheFreshness.entry(for: response, routeTTL: policy.ttl, now: received) {
                entry.scan = scan.flatMap { Self.scan(entry.body, for: $0) }
                // A page that is not JSON for the walk (an HTML error page a middlebox sent with 200, a glitch) is not
                // stored: this walk reports it, and the next one asks the upstream again instead of failing for the
                // page's whole lifetime. The version stored before stays: it may be another route's good page (its
                // items elsewhere), and a stale one is revalidated before it is served.
                guard scan == nil || entry.scan != nil else { return .success(CachedResponse(response, .miss)) }
                let stored = await write(entry, for: key, to: store)
                var served = response
                served.storedChecksum = entry.bodyChecksum
                served.storedScan = entry.scan
                return .success(CachedResponse(served, .miss, stored: stored))
            }
            await remove(key, from: store)
        }
        return .success(CachedResponse(response, .miss))
    }

    /// Removes `key`'s entry on a disk lane, when there may be one: a page that is never stored (`no-store`) costs
    /// no hop off the pool and no directory lock.
    private func remove(_ key: CacheKey, from store: DiskStore) async {
        guard store.mayHold(key) else { return }
        await diskWork.run { store.remove(key) }
    }

    /// Writes `entry` on a disk lane; the version stored, or nil when it was not stored.
    private func write(_ entry: CacheEntry, for key: CacheKey, to store: DiskStore) async -> StoredVersion? {
        let stamp = await diskWork.run { store.write(entry, for: key) }
        return stamp.map { StoredVersion(stamp: $0, freshUntil: entry.freshUntil) }
    }

    /// The scan of a page about to be stored; nil when it is not valid JSON for `paths` (the walker, scanning it
    /// itself, reports why).
    private static func scan(_ body: [UInt8], for paths: ScanPaths) -> StoredScan? {
        guard let page = try? paths.scan(body) else { return nil }
        return StoredScan(page, for: paths, body: body)
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

    init(fetched: CachingPageSource.Fetched) {
        self.fetched = fetched
    }

    init(_ response: UpstreamResponse, _ outcome: CacheOutcome, stored: CachingPageSource.StoredVersion? = nil) {
        fetched = CachingPageSource.Fetched(response: response, outcome: outcome, stored: stored)
    }
}

import Foundation

/// One upstream request for a page, conditional when an entry has validators, and what it stores or removes.
extension CachingPageSource {
    /// One upstream request for `key`: conditional if `cached` has validators; stores what it may in `store` (nil:
    /// the client said `no-store`, nothing is written nor removed). A failure is returned as it is: each request
    /// waiting for it decides whether to retry or serve a stale page.
    func refresh(
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
                return .success(CachedResponse(Self.served(entry.response, readAs: response), .revalidated, stored: stored))
            }
            await remove(key, from: store, unless: flight)
            return .success(CachedResponse(Self.served(entry.response, readAs: response), .revalidated))
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

    /// The stored page a 304 revalidated, carrying the 304's reused connection: as suspect as a page read so (stray19).
    private static func served(_ stored: UpstreamResponse, readAs read: UpstreamResponse) -> UpstreamResponse {
        var served = stored
        served.reusedConnection = read.reusedConnection
        return served
    }

    /// Removes from the store the versions of pages a walk found suspect after they were stored
    /// (`PagesOverReusedConnections`, stray19): each only while the store still holds it. A newer version another fetch
    /// stored meanwhile stays (`DiskStore.remove(_:)` by stamp, fix37). On the page's disk lane, behind its writes.
    package func forget(_ versions: [PageStamp]) async {
        guard let store else { return }
        for version in versions {
            _ = await diskWork.run(evenAfterFinish: true, for: version.key) { store.remove(version) }
        }
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
    static func scan(_ body: [UInt8], for paths: ScanPaths) -> StoredScan? {
        guard let page = try? paths.scan(body) else { return nil }
        return StoredScan(page, for: paths, body: body)
    }

    /// Waits for the store's writes and removals under way (a clean exit), at most `timeout`; true when they finished.
    package func finishWrites(within timeout: Duration) async -> Bool {
        await diskWork.finish(within: timeout)
    }
}

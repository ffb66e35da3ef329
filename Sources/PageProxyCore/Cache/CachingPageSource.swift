import Foundation

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
    private let collapser = FetchCollapser<CacheKey, Result<CachedResponse, UpstreamError>>()
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - store: nil for no cache: every fetch is a `bypass`.
    ///   - now: the wall clock that entries' freshness is measured with (injected by tests).
    package init(store: DiskStore?, now: @escaping @Sendable () -> Date = Date.init) {
        self.store = store
        self.now = now
    }

    /// The page for `request`, from the cache or from `transport`.
    package func fetch(
        _ request: UpstreamRequest, policy: CachePolicy, transport: any UpstreamTransport, timeout: Duration, maxBodyBytes: Int
    ) async throws(UpstreamError) -> Fetched {
        guard let store, store.isEnabled, policy.ttl > .zero, request.method == .get else {
            return Fetched(response: try await transport.send(request, timeout: timeout, maxBodyBytes: maxBodyBytes), outcome: .bypass)
        }
        let key = CacheKey(request)
        let found = store.lookup(key)
        let cached = found?.entry
        if let (entry, stamp) = found, !policy.forceRevalidate, entry.isFresh(at: now()) {
            return Fetched(response: entry.response, outcome: .hit, stored: StoredVersion(stamp: stamp, freshUntil: entry.freshUntil))
        }
        let (result, _) = await collapser.value(for: key) {
            // A fetch that finished between the read above and this one stored the page: use it, not a second request.
            if !policy.forceRevalidate, let (current, stamp) = store.lookup(key), current.isFresh(at: self.now()) {
                return .success(CachedResponse(current.response, .hit, stored: StoredVersion(stamp: stamp, freshUntil: current.freshUntil)))
            }
            return await self.refresh(key, cached: cached, request: request, policy: policy, store: store) { request async throws(UpstreamError) in
                try await transport.send(request, timeout: timeout, maxBodyBytes: maxBodyBytes)
            }
        }
        guard let result else { throw .connectionLost(origin: request.url.origin.description, reason: "cancelled") }
        return try result.get().fetched
    }

    /// One upstream request for `key`: conditional if `cached` has validators; stores what it may.
    private func refresh(
        _ key: CacheKey, cached: CacheEntry?, request: UpstreamRequest, policy: CachePolicy, store: DiskStore,
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
        let received = now()
        if response.status.code == 304, var entry = cached {
            entry.merge304Headers(response.headers)
            var headers = entry.headers
            if let age = response.headers["Age"] { headers.set("Age", age) }
            let freshness = CacheFreshness(headers: headers, routeTTL: policy.ttl)
            if freshness.isStorable {
                entry.storedAt = received
                entry.freshUntil = received.addingTimeInterval(freshness.lifetime.timeInterval)
                entry.mustRevalidate = freshness.mustRevalidate
                let stored = store.write(entry, for: key).map { StoredVersion(stamp: $0, freshUntil: entry.freshUntil) }
                return .success(CachedResponse(entry.response, .revalidated, stored: stored))
            }
            store.remove(key)
            return .success(CachedResponse(entry.response, .revalidated))
        }
        if response.status.code >= 500, let stale = staleEntry(cached, policy: policy) {
            return .success(CachedResponse(stale.response, .stale))
        }
        if response.status.code == 200 {
            if let entry = CacheFreshness.entry(for: response, routeTTL: policy.ttl, now: received) {
                let stored = store.write(entry, for: key).map { StoredVersion(stamp: $0, freshUntil: entry.freshUntil) }
                return .success(CachedResponse(response, .miss, stored: stored))
            }
            store.remove(key)
        }
        return .success(CachedResponse(response, .miss))
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

    init(_ response: UpstreamResponse, _ outcome: CacheOutcome, stored: CachingPageSource.StoredVersion? = nil) {
        fetched = CachingPageSource.Fetched(response: response, outcome: outcome, stored: stored)
    }
}

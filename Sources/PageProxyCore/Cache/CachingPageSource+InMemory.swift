import Foundation

extension CachingPageSource {
    /// As `freshHit`, for a page whose entry the store keeps in memory only: nil, with nothing recorded in the store,
    /// for one that would need its file, the upstream or a revalidation. A server answers a walk of such pages on its
    /// socket loop's thread, which must never wait for the disk (issue 13).
    /// - Parameter key: `CacheKey(request)`, when the caller has it already (a plan's first page).
    package func freshHitInMemory(_ request: UpstreamRequest, key: CacheKey? = nil, policy: CachePolicy) -> Fetched? {
        guard let store, policy.ttl > .zero, !policy.forceRevalidate, request.method == .get else { return nil }
        let now = clock.wallNow()
        let fits = { (entry: CacheEntry) in entry.body.count <= policy.maxBodyBytes && now < entry.freshUntil(routeTTL: policy.ttl) }
        guard let (entry, stamp) = store.lookupInMemory(key ?? CacheKey(request), if: fits) else { return nil }
        return Fetched(
            response: entry.response, outcome: .hit, stored: StoredVersion(stamp: stamp, freshUntil: entry.freshUntil(routeTTL: policy.ttl)))
    }
}

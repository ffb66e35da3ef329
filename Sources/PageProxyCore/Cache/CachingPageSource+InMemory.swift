import Foundation

extension CachingPageSource {
    /// As `freshHit`, for a page whose entry the store keeps in memory only: nil, with nothing recorded in the store,
    /// for one that would need its file, the upstream or a revalidation. A server answers a walk of such pages on its
    /// socket loop's thread, which must never wait for the disk (issue 13).
    /// - Parameter key: `CacheKey(request)`, when the caller has it already (a plan's first page).
    package func freshHitInMemory(_ request: UpstreamRequest, key: CacheKey? = nil, policy: CachePolicy) -> Fetched? {
        guard let store, policy.ttl > .zero, !policy.forceRevalidate, request.method == .get else { return nil }
        let now = clock.wallNow()
        // Judged under the store's lock: a few comparisons (the entry's lifetime rule is a stored flag, no parsing).
        return hit(store.lookupInMemory(key ?? CacheKey(request), if: { policy.servesFresh($0, at: now) != nil }), policy: policy, at: now)
    }
}

import Foundation
import Synchronization

/// Entries read ahead of a walk's lookups, on a thread of their own (`DiskStore.readAhead`).
extension CachingPageSource {
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
}

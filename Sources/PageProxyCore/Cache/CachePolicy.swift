import Foundation

/// What one client request allows the cache to do with its pages.
package struct CachePolicy: Sendable, Equatable {
    /// The route's freshness lifetime when the upstream gives none; zero bypasses the cache.
    package var ttl: Duration
    /// Serve a stale entry when the upstream fails (an error, or a 5xx after the retries).
    package var staleIfError: Bool
    /// Revalidate even a fresh entry (the client sent `Cache-Control: no-cache` or `_fresh=1`).
    package var forceRevalidate: Bool
    /// The request holds every page it reads until it answers (a merged answer): an entry read from its file is kept
    /// in memory from its first hit after a restart, since it takes no memory the answer does not take already
    /// (issue 13: the second request after a restart read every file again).
    package var keepsFirstRead: Bool
    /// The scan signature of a walk that sends its cached pages from their files and reads nothing else of their bodies
    /// (a merged answer with no fields selected, no `_explain`, of a scheme PageProxy numbers itself), with
    /// `keepsFirstRead`: an entry read from its file on its first hit, whose stored scan is for it, is verified through
    /// a reused buffer and its body left in the held file (`CacheEntry.bodyInFile`; issue 13, fourteenth pass). Nil:
    /// every body is read into memory.
    package var leavesBodiesFor: UInt64?
    /// The client's `max-age=N` (N > 0; RFC 9111 §5.2.1.1): an entry older than this (its age when stored or
    /// revalidated, plus the time since) is revalidated, however fresh.
    package var maxAge: Duration?
    /// The client's `min-fresh=N` (§5.2.1.3): an entry fresh for less than this from now is revalidated.
    package var minFresh: Duration?
    /// The client's `only-if-cached` (§5.2.1.7): a page the cache cannot serve as it is fails (`notCached`, a 504)
    /// instead of asking the upstream.
    package var onlyIfCached = false
    /// The client's `no-store` (§5.2.1.5): what the upstream answers this request is not stored (an entry already
    /// stored may still serve it).
    package var noStore = false
    /// The largest page body the route takes (`maxPageBytes`): a larger entry another route stored is not a hit here,
    /// and the upstream is asked, as it would be without the cache.
    package var maxBodyBytes: Int

    /// When `entry` stops being fresh for this request's route, if the route may serve it without asking the upstream
    /// at `now`: fresh by the route's own TTL (`CacheEntry.freshUntil(routeTTL:)`), within its page size, and no
    /// revalidation forced. Routes on one upstream URL share entries: each judges them by its own limits.
    package func servesFresh(_ entry: CacheEntry, at now: Date) -> Date? {
        guard !forceRevalidate, entry.bodyCount <= maxBodyBytes else { return nil }
        // Stored while the clock was ahead, or it stepped back since (NTP, a VM snapshot restored): its age cannot be
        // told, so it is revalidated (a 304 stores it again at the clock's time), never fresh for the skew on top
        // (attack13 M1: stored a day ahead, 60 s pages were fresh for a day). The rule answers share (`WallClockStep`).
        guard !WallClockStep.isAhead(entry.storedAt, of: now) else { return nil }
        let freshUntil = entry.freshUntil(routeTTL: ttl)
        // The client's own limits: the entry's age is its age when PageProxy stored or last revalidated it, plus the
        // time since (RFC 9111 §4.2.3).
        if let maxAge, entry.age(at: now) > maxAge.timeInterval { return nil }
        if let minFresh, freshUntil.timeIntervalSince(now) < minFresh.timeInterval { return nil }
        return now < freshUntil ? freshUntil : nil
    }

    /// The same policy with every body read into memory (`leavesBodiesFor` nil).
    package var readingWhole: CachePolicy {
        var policy = self
        policy.leavesBodiesFor = nil
        return policy
    }

    package init(
        ttl: Duration, staleIfError: Bool = false, forceRevalidate: Bool = false, keepsFirstRead: Bool = false, maxBodyBytes: Int = .max
    ) {
        self.ttl = ttl
        self.maxBodyBytes = maxBodyBytes
        self.staleIfError = staleIfError
        self.forceRevalidate = forceRevalidate
        self.keepsFirstRead = keepsFirstRead
    }
}

/// Where a page came from.
package enum CacheOutcome: String, Sendable, CaseIterable {
    /// A fresh entry; no upstream request.
    case hit
    /// Fetched from the upstream (no usable entry).
    case miss
    /// A stale or forced entry confirmed by the upstream with a 304.
    case revalidated
    /// A stale entry served because the upstream failed.
    case stale
    /// The cache was not used: disabled, or the route's TTL is zero.
    case bypass
}

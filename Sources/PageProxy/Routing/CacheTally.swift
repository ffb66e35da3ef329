import Foundation
import PageProxyCore
import Synchronization

/// Counts where one client request's pages came from, for its `PageProxy-Cache` header, log line and metrics.
final class CacheTally: Sendable {
    private let counts = Mutex<[CacheOutcome: Int]>([:])
    /// The earliest time a stored page of the answer goes stale; `.distantPast` once a page was not stored.
    private let earliestFreshUntil = Mutex(Date.distantFuture)
    /// What the answer tells caches in front of PageProxy (`Cache-Control`, `Vary`, `Age`).
    let freshness = AnswerFreshness()

    func record(_ outcome: CacheOutcome, freshUntil: Date? = nil) {
        counts.withLock { $0[outcome, default: 0] += 1 }
        earliestFreshUntil.withLock { $0 = min($0, freshUntil ?? .distantPast) }
    }

    /// Until when every page of the answer is fresh in the cache; nil when a page was not stored there.
    var freshUntil: Date? {
        let date = earliestFreshUntil.withLock { $0 }
        return date == .distantPast ? nil : date
    }

    func count(_ outcome: CacheOutcome) -> Int { counts.withLock { $0[outcome] ?? 0 } }

    /// Whether any page was served stale because the upstream failed.
    var servedStale: Bool { count(.stale) > 0 }

    /// `hits=3 misses=1 revalidated=0 stale=0 bypassed=0`: the value of `PageProxy-Cache` and of the log field.
    var summary: String {
        let counts = self.counts.withLock { $0 }
        return "hits=\(counts[.hit] ?? 0) misses=\(counts[.miss] ?? 0) revalidated=\(counts[.revalidated] ?? 0) "
            + "stale=\(counts[.stale] ?? 0) bypassed=\(counts[.bypass] ?? 0)"
    }

    /// The cache headers of an answer: the summary, and `PageProxy-Stale: true` when a page was stale.
    func addHeaders(to headers: inout HTTPHeaders) {
        headers.set("PageProxy-Cache", summary)
        if servedStale { headers.set("PageProxy-Stale", "true") }
    }
}

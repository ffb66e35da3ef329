import Foundation
import PageProxyCore
import Synchronization

/// Counts where one client request's pages came from, for its `PageProxy-Cache` header, log line and metrics, and
/// which stored versions they were, for the memo.
final class CacheTally: Sendable {
    private struct Stored {
        /// The earliest time a stored page of the answer goes stale; `.distantPast` once a page was not stored.
        var earliestFreshUntil = Date.distantFuture
        var stamps: [PageStamp] = []
    }

    /// What the answer tells caches in front of PageProxy (`Cache-Control`, `Vary`, `Age`).
    let freshness: AnswerFreshness
    /// The count of each outcome, by its index in `CacheOutcome.allCases` (no dictionary per request).
    private let counts = Mutex<[Int]>(Array(repeating: 0, count: CacheOutcome.allCases.count))
    private let stored = Mutex(Stored())

    /// - Parameter clock: the page cache's clock, which the answer's freshness is measured on.
    init(clock: PageProxyClock = .system) {
        freshness = AnswerFreshness(clock: clock)
    }

    func record(_ outcome: CacheOutcome, stored version: CachingPageSource.StoredVersion? = nil) {
        counts.withLock { $0[Self.index(of: outcome)] += 1 }
        stored.withLock { stored in
            stored.earliestFreshUntil = min(stored.earliestFreshUntil, version?.freshUntil ?? .distantPast)
            if let version { stored.stamps.append(version.stamp) }
        }
    }

    /// Until when every page of the answer is fresh in the cache; nil when a page was not stored there.
    var freshUntil: Date? {
        let date = stored.withLock { $0.earliestFreshUntil }
        return date == .distantPast ? nil : date
    }

    /// The stored versions of the pages recorded (those that were stored), in the order they arrived.
    var stamps: [PageStamp] { stored.withLock { $0.stamps } }

    func count(_ outcome: CacheOutcome) -> Int { counts.withLock { $0[Self.index(of: outcome)] } }

    /// Whether any page was served stale because the upstream failed.
    var servedStale: Bool { count(.stale) > 0 }

    /// `hits=3 misses=1 revalidated=0 stale=0 bypassed=0`: the value of `PageProxy-Cache` and of the log field.
    var summary: String {
        let counts = counts.withLock { $0 }
        return Self.summary { counts[Self.index(of: $0)] }
    }

    /// The summary of `counts` (an outcome not counted is 0).
    static func summary(_ counts: [CacheOutcome: Int]) -> String {
        summary { counts[$0] ?? 0 }
    }

    private static func summary(_ count: (CacheOutcome) -> Int) -> String {
        "hits=\(count(.hit)) misses=\(count(.miss)) revalidated=\(count(.revalidated)) stale=\(count(.stale)) bypassed=\(count(.bypass))"
    }

    private static func index(of outcome: CacheOutcome) -> Int {
        switch outcome {
        case .hit: 0
        case .miss: 1
        case .revalidated: 2
        case .stale: 3
        case .bypass: 4
        }
    }

    /// The cache headers of an answer: the summary, and `PageProxy-Stale: true` when a page was stale.
    func addHeaders(to headers: inout HTTPHeaders) {
        headers.set("PageProxy-Cache", summary)
        if servedStale { headers.set("PageProxy-Stale", "true") }
    }
}

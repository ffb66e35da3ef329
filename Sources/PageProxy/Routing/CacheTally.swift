import Foundation
import PageProxyCore
import Synchronization

/// Counts where one client request's pages came from, for its `PageProxy-Cache` header, log line and metrics, and
/// which stored versions they were, for the memo.
final class CacheTally: Sendable {
    /// One lock for all a page adds (issue 13: a page was recorded under three locks, and a tally's array of counts
    /// was an allocation per request).
    private struct State {
        /// The count of each outcome, by its index (`index(of:)`): no array, no dictionary per request.
        var counts: (Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0)
        /// The earliest time a stored page of the answer goes stale; `.distantPast` once a page was not stored.
        var earliestFreshUntil = Date.distantFuture
        var stamps: [PageStamp] = []
        var freshness: AnswerFreshness

        func count(at index: Int) -> Int {
            switch index {
            case 0: counts.0
            case 1: counts.1
            case 2: counts.2
            case 3: counts.3
            default: counts.4
            }
        }

        mutating func add(at index: Int) {
            switch index {
            case 0: counts.0 += 1
            case 1: counts.1 += 1
            case 2: counts.2 += 1
            case 3: counts.3 += 1
            default: counts.4 += 1
            }
        }
    }

    private let state: Mutex<State>
    /// The wall time when the walk began (the tally is made just before it): its answer is made no earlier than this
    /// (`MergedAnswerRenderer`), so that a clock stepped back during the walk is seen (`WallClockStep`).
    let began: Date

    /// - Parameter clock: the page cache's clock, which the answer's freshness is measured on.
    init(clock: PageProxyClock = .system) {
        state = Mutex(State(freshness: AnswerFreshness(clock: clock)))
        began = clock.wallNow()
    }

    /// One page: its cache outcome and stored version, and, with its `response`, its freshness in the answer's.
    func record(
        _ outcome: CacheOutcome, stored version: CachingPageSource.StoredVersion? = nil, response: UpstreamResponse? = nil,
        routeTTL: Duration = .zero
    ) {
        state.withLock { state in
            state.add(at: Self.index(of: outcome))
            state.earliestFreshUntil = min(state.earliestFreshUntil, version?.freshUntil ?? .distantPast)
            if let version { state.stamps.append(version.stamp) }
            if let response {
                state.freshness.record(
                    response: response, outcome: outcome, freshUntil: version?.freshUntil, stored: version, routeTTL: routeTTL)
            }
        }
    }

    /// What the answer tells caches in front of PageProxy (`Cache-Control`, `Vary`, `Age`), from the pages so far.
    var freshness: AnswerFreshness { state.withLock { $0.freshness } }

    /// Until when every page of the answer is fresh in the cache; nil when a page was not stored there.
    var freshUntil: Date? {
        let date = state.withLock { $0.earliestFreshUntil }
        return date == .distantPast ? nil : date
    }

    /// The stored versions of the pages recorded (those that were stored), in the order they arrived.
    var stamps: [PageStamp] { state.withLock { $0.stamps } }

    func count(_ outcome: CacheOutcome) -> Int { state.withLock { $0.count(at: Self.index(of: outcome)) } }

    /// Whether any page was served stale because the upstream failed.
    var servedStale: Bool { count(.stale) > 0 }

    /// `hits=3 misses=1 revalidated=0 stale=0 bypassed=0`: the value of `PageProxy-Cache` and of the log field.
    var summary: String {
        let counts = state.withLock { $0.counts }
        // The usual answer, every page a hit, is one of a few strings made once (issue 13: building it was 1 % of a
        // walk of one cached page).
        if counts.1 == 0, counts.2 == 0, counts.3 == 0, counts.4 == 0, Self.allHits.indices.contains(counts.0) {
            return Self.allHits[counts.0]
        }
        let state = State(counts: counts, freshness: AnswerFreshness())
        return Self.summary { state.count(at: Self.index(of: $0)) }
    }

    /// The summaries of answers whose pages were all hits, by their count of pages.
    private static let allHits: [String] = (0..<64).map { hits in summary { $0 == .hit ? hits : 0 } }

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

import Foundation
import PageProxyCore
import Synchronization

/// Counters, gauges and histograms exposed at `/metrics` in the Prometheus text exposition format (0.0.4).
///
/// Label values are route names (from the config), status codes and fixed outcome words, so the number of series
/// is bounded by the config, never by what clients send.
final class Metrics: Sendable {
    private struct State {
        /// Answered requests by route: one lookup by the route's name a request, not one per series it touches.
        var requests: [String: RouteRequests] = [:]
        var pages: [Key: Int] = [:]
        var cache: [Key: Int] = [:]
        var retries: [String: Int] = [:]
        var upstreamLatency: [String: Histogram] = [:]
        var bytesSent = 0
    }

    /// One route's answered requests: counts by status code, and the time taken to answer them.
    private struct RouteRequests {
        var byStatus: [Int: Int] = [:]
        var duration = Histogram()

        mutating func record(status: Int, seconds: Double) {
            byStatus[status, default: 0] += 1
            duration.observe(seconds)
        }
    }

    /// A route and one more label value (a status, an outcome).
    private struct Key: Hashable, Comparable {
        let route: String
        let value: String
        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.route, lhs.value) < (rhs.route, rhs.value) }
    }

    private let state = Mutex(State())
    /// Requests being answered: an atomic, so that a request's start takes no lock.
    private let inFlight = Atomic<Int>(0)
    private let openConnections: @Sendable () -> Int
    /// Upstream origins whose connections are not reused, caught sending a response no request asked for.
    private let originsNotReused: @Sendable () -> Int
    /// The upstream origins' shared budgets, whose counters are exposed as `pageproxy_upstream_budget_*`.
    private let budgets: OriginBudgets?
    /// What the memo of merged answers charges against its bound now (`pageproxy_memo_bytes`), once it is made.
    private let memoBytes = Mutex<(@Sendable () -> Int)?>(nil)
    /// The upstream pages whose `Date` alone made them stale on arrival (`pageproxy_cache_pages_stale_by_date_total`).
    private let pagesStaleByDate = Mutex<(@Sendable () -> Int)?>(nil)
    /// The page cache's store, read at each scrape (`pageproxy_cache_bytes`, `_entries`, `_write_failures_total`).
    private let cacheStore = Mutex<(@Sendable () -> DiskStore?)?>(nil)
    /// The log lines standard output refused (`pageproxy_log_lines_dropped_total`).
    private let logLinesDropped = Mutex<(@Sendable () -> Int)?>(nil)

    init(
        openConnections: @escaping @Sendable () -> Int = { 0 }, budgets: OriginBudgets? = nil,
        originsNotReused: @escaping @Sendable () -> Int = { 0 }
    ) {
        self.openConnections = openConnections
        self.originsNotReused = originsNotReused
        self.budgets = budgets
    }

    /// Reads the memo's charged bytes at each scrape (the memo is made after the metrics).
    func observeMemo(bytes: @escaping @Sendable () -> Int) {
        memoBytes.withLock { $0 = bytes }
    }

    /// Reads the logger's count of dropped lines at each scrape.
    func observeLogger(dropped: @escaping @Sendable () -> Int) {
        logLinesDropped.withLock { $0 = dropped }
    }

    /// Reads the page cache's count of pages stale on arrival by their `Date` at each scrape.
    func observePageCache(staleByDate: @escaping @Sendable () -> Int) {
        pagesStaleByDate.withLock { $0 = staleByDate }
    }

    /// Reads the page cache's size and failed writes at each scrape (attack13 L2: a cache that stored nothing for
    /// good showed only its misses).
    func observeCacheStore(_ store: @escaping @Sendable () -> DiskStore?) {
        cacheStore.withLock { $0 = store }
    }

    /// The page cache's size and its failed writes by reason (every reason, 0 included, so that an alert has a series).
    private func cacheStoreLines() -> String {
        let store = cacheStore.withLock { $0 }?()
        var text = family("pageproxy_cache_bytes", "gauge", "Bytes of the entry files the page cache holds (as this process indexes them).")
        text += "pageproxy_cache_bytes \(store?.totalBytes ?? 0)\n"
        let answers = store?.answerEntryCount ?? 0
        text += family("pageproxy_cache_entries", "gauge", "Page entries the page cache holds (as this process indexes them).")
        text += "pageproxy_cache_entries \((store?.entryCount ?? 0) - answers)\n"
        text += family(
            "pageproxy_cache_answer_entries", "gauge",
            "Merged answers' own entries the cache holds, of those this process wrote or read (others count as pages).")
        text += "pageproxy_cache_answer_entries \(answers)\n"
        text += family(
            "pageproxy_cache_write_failures_total", "counter",
            "Pages the cache did not store, by reason: too_large (past maxBytes), larger_than_volume, no_space, no_inodes (after evicting), no_room (under maxBytes, after evicting), linked_folder (its fan-out folder is a symbolic link), lock_busy (a lock of the cache directory busy past 1 s), unwritable_folder (its fan-out folder refused the write), error.")
        let failures = store?.failedWrites ?? [:]
        for reason in DiskStore.WriteFailure.allCases.sorted() {
            text += "pageproxy_cache_write_failures_total{reason=\"\(reason.rawValue)\"} \(failures[reason] ?? 0)\n"
        }
        return text
    }

    func requestStarted() {
        inFlight.add(1, ordering: .relaxed)
    }

    /// One answered request: its route ("" for own endpoints and unknown paths), status, bytes and duration.
    func requestFinished(route: String, status: Int, bytes: Int, duration: Duration) {
        inFlight.subtract(1, ordering: .relaxed)
        state.withLock { state in
            state.bytesSent += bytes
            state.requests[route, default: RouteRequests()].record(status: status, seconds: duration.seconds)
        }
    }

    /// One upstream page request and how it ended: `ok`, `not_modified` (a revalidation's 304), `http_4xx`, `http_5xx`,
    /// `http_other` (1xx, 3xx unasked), `error`, `timeout` or `cancelled`; `retry` when the request that sent it had
    /// tried the page before.
    func pageFetched(route: String, outcome: String, duration: Duration, retry: Bool = false) {
        state.withLock { state in
            state.pages[Key(route: route, value: outcome), default: 0] += 1
            state.upstreamLatency[route, default: Histogram()].observe(duration.seconds)
            if retry { state.retries[route, default: 0] += 1 }
        }
    }

    /// A page served from, or fetched into, the cache: `hit`, `miss`, `revalidated`, `stale`, `bypass`.
    func cacheOutcome(route: String, outcome: String, count: Int = 1) {
        state.withLock { $0.cache[Key(route: route, value: outcome), default: 0] += count }
    }

    func exposition() -> String {
        let snapshot = state.withLock { $0 }
        var text = ""
        text += family("pageproxy_requests_total", "counter", "Client requests answered, by route and status.")
        // Ordered by route, then by the status's text, as when the status was kept as a label string.
        let byStatus = snapshot.requests.flatMap { route, requests in
            requests.byStatus.map { (key: Key(route: route, value: String($0.key)), count: $0.value) }
        }
        for (key, count) in byStatus.sorted(by: { $0.key < $1.key }) {
            text += "pageproxy_requests_total{route=\"\(Self.escape(key.route))\",status=\"\(key.value)\"} \(count)\n"
        }
        text += family("pageproxy_requests_in_flight", "gauge", "Client requests being answered now.")
        text += "pageproxy_requests_in_flight \(inFlight.load(ordering: .relaxed))\n"
        text += family("pageproxy_open_connections", "gauge", "Client connections open now.")
        text += "pageproxy_open_connections \(openConnections())\n"
        text += family(
            "pageproxy_memo_bytes", "gauge",
            "Bytes of merged answers charged against cache.memoBytes: kept in the memo, being read back for it, or being sent (evicted ones too).")
        text += "pageproxy_memo_bytes \(memoBytes.withLock { $0 }?() ?? 0)\n"
        text += family("pageproxy_response_bytes_total", "counter", "Bytes written to clients.")
        text += "pageproxy_response_bytes_total \(snapshot.bytesSent)\n"
        text += family("pageproxy_upstream_pages_total", "counter", "Upstream page requests, by route and outcome.")
        for (key, count) in snapshot.pages.sorted(by: { $0.key < $1.key }) {
            text += "pageproxy_upstream_pages_total{route=\"\(Self.escape(key.route))\",outcome=\"\(key.value)\"} \(count)\n"
        }
        text += family("pageproxy_upstream_retries_total", "counter", "Upstream requests retried, by route.")
        for (route, count) in snapshot.retries.sorted(by: { $0.key < $1.key }) {
            text += "pageproxy_upstream_retries_total{route=\"\(Self.escape(route))\"} \(count)\n"
        }
        text += family("pageproxy_cache_pages_total", "counter", "Pages by cache outcome (hit, miss, revalidated, stale, bypass).")
        for (key, count) in snapshot.cache.sorted(by: { $0.key < $1.key }) {
            text += "pageproxy_cache_pages_total{route=\"\(Self.escape(key.route))\",outcome=\"\(key.value)\"} \(count)\n"
        }
        text += family(
            "pageproxy_cache_pages_stale_by_date_total", "counter",
            "Upstream pages stale on arrival because their Date is behind this clock by more than their lifetime (the upstream's clock is slow; logged once per origin per 10 minutes).")
        text += "pageproxy_cache_pages_stale_by_date_total \(pagesStaleByDate.withLock { $0 }?() ?? 0)\n"
        text += cacheStoreLines()
        text += family(
            "pageproxy_log_lines_dropped_total", "counter",
            "Log lines dropped: standard output refused them (closed, a terminal gone, a full disk) or stopped taking them with 10,000 waiting (a paused terminal).")
        text += "pageproxy_log_lines_dropped_total \(logLinesDropped.withLock { $0 }?() ?? 0)\n"
        text += family(
            "pageproxy_upstream_origins_not_reused", "gauge",
            "Upstream origins caught sending a response no request asked for: each request to them opens its own connection, until a restart.")
        text += "pageproxy_upstream_origins_not_reused \(originsNotReused())\n"
        text += family("pageproxy_upstream_request_duration_seconds", "histogram", "Upstream page request latency.")
        for (route, histogram) in snapshot.upstreamLatency.sorted(by: { $0.key < $1.key }) {
            text += histogram.lines(name: "pageproxy_upstream_request_duration_seconds", labels: "route=\"\(Self.escape(route))\"")
        }
        text += family("pageproxy_response_duration_seconds", "histogram", "Time to answer a client request.")
        for (route, requests) in snapshot.requests.sorted(by: { $0.key < $1.key }) {
            text += requests.duration.lines(name: "pageproxy_response_duration_seconds", labels: "route=\"\(Self.escape(route))\"")
        }
        text += budgetLines()
        return text
    }

    /// One series per origin that has a budget; origins come from the config, so the series are bounded.
    private func budgetLines() -> String {
        let budgets = (budgets?.all ?? []).map { ($0.origin, $0.snapshot) }
        let families: [(String, String, String, (OriginBudget.Statistics) -> String?)] = [
            ("pageproxy_upstream_budget_waits_total", "counter", "Upstream requests that waited for their origin's budget.", { String($0.waits) }),
            ("pageproxy_upstream_budget_wait_seconds_total", "counter", "Time upstream requests waited for their origin's budget.", { String($0.waitedSeconds) }),
            ("pageproxy_upstream_budget_refusals_total", "counter", "Walks failed at once because the budget's wait would pass their deadline.", { String($0.refusals) }),
            ("pageproxy_upstream_rate_limited_total", "counter", "Upstream answers that refused a request for its rate (429, or 403 with no requests remaining).", { String($0.upstreamRefusals) }),
            ("pageproxy_upstream_budget_in_flight", "gauge", "Upstream requests in flight, by origin.", { String($0.inFlight) }),
            ("pageproxy_upstream_budget_tokens", "gauge", "Tokens in the origin's requests-per-second bucket.", { $0.tokens.map { String($0) } }),
        ]
        var text = ""
        for (name, type, help, value) in families {
            text += family(name, type, help)
            for (origin, statistics) in budgets {
                if let value = value(statistics) { text += "\(name){origin=\"\(Self.escape(origin))\"} \(value)\n" }
            }
        }
        return text
    }

    private func family(_ name: String, _ type: String, _ help: String) -> String {
        "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// Label values escape backslash, quote and newline (exposition format).
    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

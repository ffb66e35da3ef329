import Synchronization

/// The account of one walk: every page fetch (URL, status, cache outcome, bytes, upstream attempts, when it started
/// and ended), the items each page gave, and what it adds up to: time spent on the upstream and in the cache, and
/// the critical path. `_explain` answers with it; every merged answer's `Server-Timing` comes from it; `PageProxy
/// fetch` draws its progress line from it.
package final class WalkRecord: Sendable {
    /// When one page fetch started and ended: all the critical path needs, kept for every fetch of an `_explain` walk
    /// (40 bytes a page) where the fetches themselves are kept only at the walk's two ends (`KeptFetches`).
    package struct Span: Sendable, Equatable, FetchInterval {
        package var number: Int
        package var started: Duration
        package var finished: Duration
    }

    /// One page fetch, as the walk's fetcher saw it. Speculative fetches (`lookahead`) are recorded too, so the list
    /// holds every upstream request; those the walk did not use have no `items`.
    package struct Fetch: Sendable, Equatable, FetchInterval {
        package var number: Int
        /// The page's URL, credentials redacted (`PageURL.redactedDescription`), cut to `keptURLBytes` (review9 G1: an
        /// upstream's 64 KB cursors made the account of a 1,000-page walk hold 64 MB of URLs).
        package var url: String
        /// The redacted URL's whole length in bytes: more than `url`'s when it was cut.
        package var urlBytes: Int
        /// The status the page was answered with; nil when no answer came (a connection error, a timeout).
        package var status: Int?
        /// Where the page came from; nil when no answer came.
        package var outcome: CacheOutcome?
        package var bytes: Int
        /// Requests sent upstream for this page (0 for a cache hit); more than 1 means retries.
        package var attempts: Int
        /// Since the walk began.
        package var started: Duration
        package var finished: Duration
        /// How many items the walk took from the page (after a window or a cap); nil if it was not taken.
        package var items: Int?
        /// Why no answer came, when none did.
        package var error: String?

        package init(
            number: Int, url: PageURL, status: Int?, outcome: CacheOutcome?, bytes: Int, attempts: Int, started: Duration, finished: Duration,
            items: Int? = nil, error: String? = nil
        ) {
            self.number = number
            (self.url, self.urlBytes) = Self.kept(url)
            self.status = status
            self.outcome = outcome
            self.bytes = bytes
            self.attempts = attempts
            self.started = started
            self.finished = finished
            self.items = items
            self.error = error
        }

        /// The most bytes of a page's URL a fetch keeps: whole for every ordinary URL, cursors of a few hundred bytes
        /// included.
        package static let keptURLBytes = 1_024

        /// `url` as a fetch keeps it: redacted, cut to `keptURLBytes` at a character's start; and its whole length.
        static func kept(_ url: PageURL) -> (url: String, bytes: Int) {
            let whole = url.redactedDescription
            let length = whole.utf8.count
            guard length > keptURLBytes else { return (whole, length) }
            let utf8 = whole.utf8
            var end = utf8.index(utf8.startIndex, offsetBy: keptURLBytes)
            // Back to the start of a character: a continuation byte is 10xxxxxx.
            while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
            return (String(Substring(utf8[..<end])), length)
        }

        /// Whether the fetch is of `url` (as far as it kept it).
        func isOf(_ url: PageURL) -> Bool {
            let kept = Self.kept(url)
            return kept.bytes == urlBytes && kept.url == self.url
        }

        package var retries: Int { max(0, attempts - 1) }
        /// Whether the page's answer came from the upstream rather than from the cache alone.
        package var wentUpstream: Bool { outcome != .hit }
    }

    /// How far a walk has come, for a progress line.
    package struct Progress: Sendable, Equatable {
        package var pages: Int
        package var items: Int
        /// How many pages the walk has in all, once the scheme knows it.
        package var pagesKnown: Int?
        /// How many items the upstream says it has, when it says.
        package var totalItems: Int?
        package var elapsed: Duration

        package init(pages: Int, items: Int, pagesKnown: Int?, totalItems: Int?, elapsed: Duration) {
            self.pages = pages
            self.items = items
            self.pagesKnown = pagesKnown
            self.totalItems = totalItems
            self.elapsed = elapsed
        }
    }

    /// The wall-clock time a walk spent waiting for the upstream and reading the cache: the union of its fetches'
    /// intervals, so that concurrent fetches are not counted twice.
    package struct Timing: Sendable, Equatable {
        package var upstream: Duration
        package var cache: Duration
    }

    /// The union of intervals added in order of their starts: its length so far, and where it ends.
    private struct Sweep {
        var length = Duration.zero
        var end = Duration.zero

        mutating func add(_ started: Duration, _ finished: Duration) {
            if started >= end {
                length += finished - started
                end = finished
            } else if finished > end {
                length += finished - end
                end = finished
            }
        }
    }

    /// A fetch's interval, until it is folded into the sweeps.
    private struct Interval {
        var started: Duration
        var finished: Duration
        var upstream: Bool

        /// Adds the interval to the sweep it belongs to.
        func add(to upstreamSweep: inout Sweep, or cacheSweep: inout Sweep) {
            if upstream {
                upstreamSweep.add(started, finished)
            } else {
                cacheSweep.add(started, finished)
            }
        }
    }

    private struct State {
        var fetches: KeptFetches
        var spans: [Span] = []
        var attempts: [PageURL: Int] = [:]
        /// Intervals not folded yet, in the order they finished.
        var pending: [Interval] = []
        var upstream = Sweep()
        var cache = Sweep()
        var pages = 0
        var items = 0
        var totalItems: Int?
    }

    /// Intervals kept unfolded: far more than can finish while one fetch is in flight (the walk's window of
    /// concurrency and lookahead, at most a few dozen), so that folding the earliest-started is exact.
    private static let unfolded = 256

    private let began: ContinuousClock.Instant
    /// Whether every fetch is kept (`_explain`); otherwise only the timing, in bounded memory whatever the page count
    /// (DESIGN.md "Outputs": memory depends on page size and concurrency, not on how many pages there are).
    private let keepsFetches: Bool
    private let state: Mutex<State>
    private let onProgress: (@Sendable (Progress) -> Void)?

    /// - Parameters:
    ///   - keepsFetches: keep every fetch and its attempts, for `fetches` and `criticalPath`; without it, only the
    ///     timing and the progress are kept.
    ///   - keptAtEachEnd: how many fetches `fetches` keeps in full at each end of the walk (`KeptFetches`).
    ///   - onProgress: called each time the walk hands out a page.
    package init(
        began: ContinuousClock.Instant = .now, keepsFetches: Bool = true, keptAtEachEnd: Int = KeptFetches.defaultAtEachEnd,
        onProgress: (@Sendable (Progress) -> Void)? = nil
    ) {
        self.began = began
        self.keepsFetches = keepsFetches
        self.state = Mutex(State(fetches: KeptFetches(atEachEnd: keptAtEachEnd)))
        self.onProgress = onProgress
    }

    /// Time since the walk began.
    package var elapsed: Duration { .now - began }

    /// Counts one request sent upstream for `url` (a retry is another).
    package func attempted(_ url: PageURL) {
        guard keepsFetches else { return }
        state.withLock { $0.attempts[url, default: 0] += 1 }
    }

    /// Records a fetch that was answered (by the upstream or the cache).
    package func fetched(number: Int, url: PageURL, status: Int, outcome: CacheOutcome, bytes: Int, started: ContinuousClock.Instant) {
        let (started, finished) = (started - began, .now - began)
        record(Interval(started: started, finished: finished, upstream: outcome != .hit), of: url) {
            Fetch(
                number: number, url: url, status: status, outcome: outcome, bytes: bytes, attempts: 0, started: started,
                finished: finished)
        }
    }

    /// Records a fetch that got no answer.
    package func failed(number: Int, url: PageURL, error: String, started: ContinuousClock.Instant) {
        let (started, finished) = (started - began, .now - began)
        record(Interval(started: started, finished: finished, upstream: true), of: url) {
            Fetch(
                number: number, url: url, status: nil, outcome: nil, bytes: 0, attempts: 0, started: started, finished: finished,
                error: error)
        }
    }

    /// Records `fetch` as it is (no attempts counted in).
    func record(_ fetch: Fetch) {
        record(Interval(started: fetch.started, finished: fetch.finished, upstream: fetch.wentUpstream), of: nil) { fetch }
    }

    /// Records a fetch's `interval`, and the fetch itself when every fetch is kept: `fetch` is only built then (its
    /// URL redacted and cut per page would be work for nothing on every other walk; review10); with `url`, the
    /// page's, its attempts are counted in (`attempted`).
    private func record(_ interval: Interval, of url: PageURL?, fetch: () -> Fetch) {
        let kept = keepsFetches ? fetch() : nil
        state.withLock { state in
            state.pending.append(interval)
            if state.pending.count >= 2 * Self.unfolded { Self.fold(&state, keeping: Self.unfolded) }
            guard var kept else { return }
            // Counted while the page was in flight, and let go with it: the counts are kept by the fetches only.
            if let url { kept.attempts = state.attempts.removeValue(forKey: url) ?? 0 }
            state.spans.append(Span(number: kept.number, started: kept.started, finished: kept.finished))
            state.fetches.append(kept)
        }
    }

    /// Adds all but the `keeping` latest-started pending intervals to the sweeps, in order of their starts.
    private static func fold(_ state: inout State, keeping: Int) {
        state.pending.sort { $0.started < $1.started }
        for interval in state.pending.dropLast(keeping) { interval.add(to: &state.upstream, or: &state.cache) }
        state.pending.removeFirst(max(0, state.pending.count - keeping))
    }

    /// The upstream's total, once known.
    package func setTotalItems(_ total: Int?) {
        guard let total else { return }
        state.withLock { $0.totalItems = total }
    }

    package var totalItems: Int? { state.withLock { $0.totalItems } }

    /// Records that the walk handed out `page` with `items` items (after any window or cap).
    package func taken(number: Int, url: PageURL, items: Int, pagesKnown: Int?) {
        let progress = state.withLock { state in
            // The page was fetched moments ago: the search from the end is short.
            // Page 1 of an auto route was fetched at the route's URL, to detect the scheme, before the scheme named its
            // own first URL (`?page=1` added): it is the one fetch of page 1 (attack7 F5: the account left it out).
            if keepsFetches, !state.fetches.setItems(items, ofLatest: { $0.number == number && $0.isOf(url) }), number == 1 {
                _ = state.fetches.setItems(items, ofLatest: { $0.number == 1 && $0.items == nil })
            }
            state.pages += 1
            state.items += items
            return Progress(pages: state.pages, items: state.items, pagesKnown: pagesKnown, totalItems: state.totalItems, elapsed: .now - began)
        }
        onProgress?(progress)
    }

    /// The fetches kept (none unless `keepsFetches`): every fetch of a walk of up to twice `keptAtEachEnd`, else the
    /// first and the last `keptAtEachEnd` (`omittedFetches` counts the others); in the order they started.
    package var fetches: [Fetch] {
        state.withLock { $0.fetches.all }.sorted { ($0.started, $0.number) < ($1.started, $1.number) }
    }

    /// What the fetches `fetches` leaves out add up to.
    package var omittedFetches: KeptFetches.Omitted { state.withLock { $0.fetches.omitted } }

    /// The pages the walk handed out, and their items (after any window or cap).
    package var taken: (pages: Int, items: Int) { state.withLock { ($0.pages, $0.items) } }

    /// Time on the upstream (every fetch that was not a plain cache hit) and in the cache (hits).
    package var timing: Timing {
        state.withLock { state in
            // Folded into copies of the sweeps, the pending intervals left in place: sorting a copy of them was an
            // allocation a request (issue 13), and they are usually in order already (one page; pages read in place).
            var (upstream, cache) = (state.upstream, state.cache)
            let pending = state.pending
            let inOrder = zip(pending, pending.dropFirst()).allSatisfy { $0.started <= $1.started }
            for interval in inOrder ? pending : pending.sorted(by: { $0.started < $1.started }) {
                interval.add(to: &upstream, or: &cache)
            }
            return Timing(upstream: upstream.length, cache: cache.length)
        }
    }

    /// The chain of fetches that decided how long the walk took: from the fetch that ended last, back through the
    /// fetch that ended last before it started (what it waited for: the page that named it, or a free place in the
    /// concurrency window), to one that started with nothing before it. Page numbers in walk order.
    /// Over every fetch, those `fetches` leaves out too.
    package var criticalPath: [Span] {
        Self.criticalPath(of: state.withLock { $0.spans }.sorted { ($0.started, $0.number) < ($1.started, $1.number) })
    }

    /// In O(n log n): each step a binary search among the fetches ordered by when they ended (attack7 F1: a filter of
    /// every fetch per step made a sequential walk's account quadratic: 15 s of CPU for 16,000 pages). Of fetches
    /// that ended at the same moment, the first in `fetches`' order is taken; a step only goes to one that ended
    /// before the current one's place in that order (a fetch that took no time cannot be its own cause).
    static func criticalPath<Timed: FetchInterval>(of fetches: [Timed]) -> [Timed] {
        guard !fetches.isEmpty else { return [] }
        // Ordered by end, ties in `fetches`' order (indices break them: the sort need not be stable).
        let byEnd = fetches.indices.sorted { (fetches[$0].finished, $0) < (fetches[$1].finished, $1) }
        // Where the run of fetches that ended at the same moment as each one begins.
        var runStart = [Int](repeating: 0, count: byEnd.count)
        for position in byEnd.indices.dropFirst() {
            let same = fetches[byEnd[position]].finished == fetches[byEnd[position - 1]].finished
            runStart[position] = same ? runStart[position - 1] : position
        }
        var position = runStart[byEnd.count - 1]
        var path = [fetches[byEnd[position]]]
        while true {
            let started = fetches[byEnd[position]].started
            // The last position that ended by `started`, and before this one.
            var (low, high) = (0, position)
            while low < high {
                let middle = (low + high) / 2
                if fetches[byEnd[middle]].finished <= started { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { break }
            position = runStart[low - 1]
            path.append(fetches[byEnd[position]])
        }
        return path.reversed()
    }

    /// The length of the union of the fetches' intervals.
    static func union(_ fetches: [Fetch]) -> Duration {
        var sweep = Sweep()
        for fetch in fetches.sorted(by: { $0.started < $1.started }) { sweep.add(fetch.started, fetch.finished) }
        return sweep.length
    }
}

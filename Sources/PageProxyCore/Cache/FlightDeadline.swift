import Synchronization

/// What the callers waiting for one collapsed fetch (`FetchCollapser`) need of its one try: the latest of their
/// deadlines, which each caller that joins may push later, never earlier; and the moment the try is sent, from which
/// each caller's own page time runs (`FlightWaiter`).
///
/// The deadline is read by the fetch when it starts a wait of its own (an origin's budget); the fetch itself is cut at
/// no one caller's deadline or page timeout: it is cancelled when the last caller waiting for it has gone (each at its
/// own deadline or page time), so it lives as long as the longest of them needs.
package final class FlightDeadline: Sendable {
    private struct Waiters {
        var sent = false
        /// The callers that joined before the try was sent (told when it is).
        var pending: [FlightWaiter] = []
    }

    /// nil once a caller with no deadline has joined (it waits as long as the fetch takes).
    private let latest: Mutex<ContinuousClock.Instant?>
    private let waiters = Mutex(Waiters())
    private let supersededFlag = Atomic<Bool>(false)
    /// How many times the flight's tries were sent (`trySent`): a try the origin's budget refused was not.
    private let sends = Atomic<Int>(0)
    /// The earliest end of a waiter's time (its deadline, or its page time once the try was sent).
    private let firstEnd: Mutex<ContinuousClock.Instant?>

    /// The timeout the transport is given for the try: a backstop only, since the try ends when its last waiter leaves,
    /// at the latest when that waiter's page time ends, and a waiter joining while it runs may lengthen it.
    package static let tryBackstop = Duration.seconds(86_400)

    package init(_ deadline: ContinuousClock.Instant?) {
        latest = Mutex(deadline)
        firstEnd = Mutex(deadline)
    }

    /// How many tries of this flight were sent so far.
    package var sendCount: Int { sends.load(ordering: .acquiring) }

    /// Whether a waiter's time (deadline or page time) had ended by `now`: a try cancelled then was cut because it
    /// took too long for one of them (a timeout), not because every client left.
    package func outlivedAWaiter(at now: ContinuousClock.Instant) -> Bool {
        firstEnd.withLock { $0.map { now >= $0 } ?? false }
    }

    private func noteEnd(_ end: ContinuousClock.Instant?) {
        guard let end else { return }
        firstEnd.withLock { $0 = min($0 ?? end, end) }
    }

    /// The latest deadline of the callers that have waited so far; nil if one of them has none.
    package var instant: ContinuousClock.Instant? { latest.withLock { $0 } }

    /// A caller with `deadline` joined: the fetch lives at least as long as it waits.
    package func extend(to deadline: ContinuousClock.Instant?) {
        noteEnd(deadline)
        latest.withLock { latest in
            guard let current = latest else { return }
            latest = deadline.map { max(current, $0) }
        }
    }

    /// Whether a newer flight of the same key started while this one still ran (one of its callers left, and a retry
    /// or a new request started afresh: `FetchCollapser`). Its answer still goes to its own callers, but it must not
    /// replace what the newer one stores: it was asked earlier, and may land later (review15 B1).
    package var isSuperseded: Bool { supersededFlag.load(ordering: .acquiring) }

    /// A newer flight of the same key started.
    package func supersede() { supersededFlag.store(true, ordering: .releasing) }

    /// A caller waits for the try: its page time starts when the try is sent, or now if it has been.
    package func add(_ waiter: FlightWaiter) {
        let sent = waiters.withLock { waiters in
            if !waiters.sent { waiters.pending.append(waiter) }
            return waiters.sent
        }
        if sent { noteEnd(waiter.trySent()) }
    }

    /// The try is being sent (after any wait for the origin's budget): every caller's page time starts now.
    package func trySent() {
        sends.add(1, ordering: .releasing)
        let pending = waiters.withLock { waiters in
            waiters.sent = true
            defer { waiters.pending = [] }
            return waiters.pending
        }
        for waiter in pending { noteEnd(waiter.trySent()) }
    }
}

import Synchronization

/// The latest deadline among the callers waiting for one collapsed fetch (`FetchCollapser`): the fetch must not give
/// up before the last of them does, so each caller that joins may push it later, never earlier.
///
/// Read by the fetch when it starts a wait of its own (an origin's budget); the fetch itself is not cut at any one
/// caller's deadline: it is cancelled when the last caller waiting for it has gone (each at its own deadline).
package final class FlightDeadline: Sendable {
    /// nil once a caller with no deadline has joined (it waits as long as the fetch takes).
    private let latest: Mutex<ContinuousClock.Instant?>

    package init(_ deadline: ContinuousClock.Instant?) {
        latest = Mutex(deadline)
    }

    /// The latest deadline of the callers that have waited so far; nil if one of them has none.
    package var instant: ContinuousClock.Instant? { latest.withLock { $0 } }

    /// A caller with `deadline` joined: the fetch lives at least as long as it waits.
    package func extend(to deadline: ContinuousClock.Instant?) {
        latest.withLock { latest in
            guard let current = latest else { return }
            latest = deadline.map { max(current, $0) }
        }
    }
}

import Synchronization

/// What the mock upstream has been asked, for tests and the demo.
package final class MockRequestLog: Sendable {
    private struct State {
        var requests: [MockRequest] = []
        var total = 0
        var inFlight = 0
        var peakInFlight = 0
        /// Keys of one-shot faults that have already fired ("transient500 /plain/items?...").
        var firedFaults: Set<String> = []
    }

    private let state = Mutex(State())
    /// How many requests are kept: a mock serving a long demo must not grow without bound.
    package let capacity: Int

    package init(capacity: Int = 50_000) {
        self.capacity = max(2, capacity)
    }

    /// The requests received, in arrival order: all of them, or the latest ones past `capacity`.
    package var requests: [MockRequest] { state.withLock { $0.requests } }
    /// How many requests have been received (all of them, even past `capacity`).
    package var count: Int { state.withLock { $0.total } }
    /// Requests received and not yet answered.
    package var inFlight: Int { state.withLock { $0.inFlight } }
    /// The highest `inFlight` seen since creation or the last `reset()`.
    package var peakInFlight: Int { state.withLock { $0.peakInFlight } }

    /// Forgets the requests, the peak and which one-shot faults have fired.
    /// Requests still in flight stay counted in `inFlight`.
    package func reset() {
        state.withLock { state in
            state.requests = []
            state.total = 0
            state.peakInFlight = state.inFlight
            state.firedFaults = []
        }
    }

    /// Records `request` as arrived and in flight.
    package func begin(_ request: MockRequest) {
        state.withLock { state in
            if state.requests.count >= capacity {
                // Drop the older half at once, so that keeping the latest requests costs O(1) amortized.
                state.requests.removeFirst(capacity / 2)
            }
            state.requests.append(request)
            state.total += 1
            state.inFlight += 1
            state.peakInFlight = max(state.peakInFlight, state.inFlight)
        }
    }

    /// Marks one request as answered.
    package func end() {
        state.withLock { $0.inFlight -= 1 }
    }

    /// True the first time it is called for `key`, false afterwards (until `reset()`).
    package func fireOnce(_ key: String) -> Bool {
        state.withLock { $0.firedFaults.insert(key).inserted }
    }
}

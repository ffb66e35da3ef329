import Synchronization

/// What the mock upstream has been asked, for tests and the demo.
final class MockRequestLog: Sendable {
    private struct State {
        var requests: [MockRequest] = []
        var inFlight = 0
        var peakInFlight = 0
        /// Keys of one-shot faults that have already fired ("transient500 /plain/items?...").
        var firedFaults: Set<String> = []
    }

    private let state = Mutex(State())

    init() {}

    /// Every request received, in arrival order.
    var requests: [MockRequest] { state.withLock { $0.requests } }
    /// How many requests have been received.
    var count: Int { state.withLock { $0.requests.count } }
    /// Requests received and not yet answered.
    var inFlight: Int { state.withLock { $0.inFlight } }
    /// The highest `inFlight` seen since creation or the last `reset()`.
    var peakInFlight: Int { state.withLock { $0.peakInFlight } }

    /// Forgets the requests, the peak and which one-shot faults have fired.
    /// Requests still in flight stay counted in `inFlight`.
    func reset() {
        state.withLock { state in
            state.requests = []
            state.peakInFlight = state.inFlight
            state.firedFaults = []
        }
    }

    /// Records `request` as arrived and in flight.
    func begin(_ request: MockRequest) {
        state.withLock { state in
            state.requests.append(request)
            state.inFlight += 1
            state.peakInFlight = max(state.peakInFlight, state.inFlight)
        }
    }

    /// Marks one request as answered.
    func end() {
        state.withLock { $0.inFlight -= 1 }
    }

    /// True the first time it is called for `key`, false afterwards (until `reset()`).
    func fireOnce(_ key: String) -> Bool {
        state.withLock { $0.firedFaults.insert(key).inserted }
    }
}

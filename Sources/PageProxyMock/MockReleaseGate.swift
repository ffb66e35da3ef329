import Synchronization

/// Tests only: holds tasks at `pass()` until the test calls `open()` (a cancelled task stops waiting): every answer
/// of the mock (`MockUpstreamOptions.releaseGate`), or any fetch a unit test holds, so that a test keeps work in
/// flight for exactly as long as it needs, with no latency.
package final class MockReleaseGate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var counter = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// How many tasks wait now.
    package var waiting: Int { state.withLock { $0.waiters.count } }

    /// Waits until the gate is open (or the waiting task is cancelled).
    package func pass() async {
        let id = state.withLock { state -> Int in
            state.counter += 1
            return state.counter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.isOpen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Lets every held answer go, and every later one pass at once.
    package func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        waiters.forEach { $0.resume() }
    }
}

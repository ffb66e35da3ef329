import Dispatch
import PageProxyCore
import Synchronization

/// Holds the mock's answers until `count` requests are in flight at once, then opens for good. Unless
/// `holdsFirst`, the very first request passes at once: a walk fetches its first page alone, to learn how many
/// pages there are (a walk with lookahead does not, and is held from the first).
///
/// A test can then prove a fan-out of `count` from the mock's record alone, however slowly the machine runs. The
/// gate also opens `limit` after its first held request, so a proxy that never fans out that far fails its test
/// instead of hanging it; `openedAtLimit` then says so, and the test stack reports it by name (cleanup24: the
/// peak check alone failed with a bare number).
package final class MockGate: Sendable {
    private struct State {
        var waiting: [CheckedContinuation<Void, Never>] = []
        var isOpen = false
        var sawFirst = false
        var timerStarted = false
        var openedAtLimit = false
    }

    package let count: Int
    /// How long held requests wait for `count` at most.
    package let limit: Duration
    private let state = Mutex(State())

    package init(count: Int, holdsFirst: Bool = false, limit: Duration = .seconds(10)) {
        self.count = count
        self.limit = limit
        state.withLock { $0.sawFirst = holdsFirst }
    }

    /// Returns at once when the gate is open; otherwise waits until `count` requests wait here, or the limit.
    package func pass() async {
        await withCheckedContinuation { continuation in
            let (released, startTimer) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Bool) in
                if state.isOpen || !state.sawFirst {
                    state.sawFirst = true
                    return ([continuation], false)
                }
                state.waiting.append(continuation)
                let startTimer = !state.timerStarted
                state.timerStarted = true
                guard state.waiting.count >= count else { return ([], startTimer) }
                return (open(&state), false)
            }
            if startTimer {
                DispatchQueue.global().asyncAfter(deadline: .now() + limit.dispatchInterval) { [self] in
                    state.withLock { state in
                        if !state.isOpen { state.openedAtLimit = true }
                        return open(&state)
                    }.forEach { $0.resume() }
                }
            }
            released.forEach { $0.resume() }
        }
    }

    /// Whether the gate opened because `limit` passed with requests still held: `count` were never in flight at once.
    package var openedAtLimit: Bool { state.withLock { $0.openedAtLimit } }

    private func open(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        state.isOpen = true
        defer { state.waiting = [] }
        return state.waiting
    }
}

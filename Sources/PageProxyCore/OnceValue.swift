import Synchronization

/// A value given once, for one task that waits for it: the first `give` counts, later ones are ignored, and the
/// waiter gets the value whether it was given before or after it began waiting — or nil when it is cancelled first
/// (the value stays to be given). One shape for the one-shot waits: `DiskWork.finish` (the lanes' end or the timer,
/// whichever comes first) and `FlightWaiter` (when a joined try is sent).
package final class OnceValue<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        /// The waiter, until the value is given.
        var waiting: CheckedContinuation<Value?, Never>?
    }

    private let state = Mutex(State())

    package init() {}

    /// Gives `value` unless one was given before.
    package func give(_ value: Value) {
        let waiting = state.withLock { state -> CheckedContinuation<Value?, Never>? in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: value)
    }

    /// Whether a value was given.
    package var isGiven: Bool { state.withLock { $0.value != nil } }

    /// The value once given; nil if the caller is cancelled before. One waiter at a time.
    package func value() async -> Value? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let known = state.withLock { state -> Value?? in
                    if let value = state.value { return .some(value) }
                    if Task.isCancelled { return .some(nil) }
                    state.waiting = continuation
                    return nil
                }
                if let known { continuation.resume(returning: known) }
            }
        } onCancel: {
            state.withLock { state in
                defer { state.waiting = nil }
                return state.waiting
            }?.resume(returning: nil)
        }
    }
}

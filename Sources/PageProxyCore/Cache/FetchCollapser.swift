import Synchronization

/// Runs one piece of work per key at a time: callers that ask for a key already in flight wait for its result
/// instead of starting their own (request collapsing: 20 clients asking for one page make one upstream request).
///
/// The work runs in a task of its own, not in any caller's, so one caller going away never fails the others: a
/// cancelled caller stops waiting at once and gets nil, and the work itself is cancelled only when every caller
/// waiting for it has gone.
package final class FetchCollapser<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Flight {
        let generation: Int
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
        var task: Task<Void, Never>?
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        var counter = 0
        /// Callers whose cancellation ran before they began to wait.
        var cancelledEarly: Set<Int> = []
    }

    private let state = Mutex(State())

    package init() {}

    /// How many keys have work in flight.
    package var inFlightCount: Int { state.withLock { $0.flights.count } }

    /// How many callers wait for `key`'s work.
    package func waiterCount(for key: Key) -> Int { state.withLock { $0.flights[key]?.waiters.count ?? 0 } }

    /// The result of `work` for `key`, run now or joined if already running; nil if this caller was cancelled.
    /// - Returns: the value, and whether this caller joined work another caller started.
    package func value(for key: Key, work: @escaping @Sendable () async -> Value) async -> (value: Value?, joined: Bool) {
        let waiter = state.withLock { state -> Int in
            state.counter += 1
            return state.counter
        }
        let joined = Mutex(false)
        let value = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                let start = state.withLock { state -> Int? in
                    if state.cancelledEarly.remove(waiter) != nil {
                        continuation.resume(returning: nil)
                        return nil
                    }
                    if state.flights[key] != nil {
                        state.flights[key]?.waiters[waiter] = continuation
                        joined.withLock { $0 = true }
                        return nil
                    }
                    state.counter += 1
                    state.flights[key] = Flight(generation: state.counter, waiters: [waiter: continuation])
                    return state.counter
                }
                guard let generation = start else { return }
                let task = Task {
                    let value = await work()
                    self.finish(key, generation: generation, with: value)
                }
                let abandoned = state.withLock { state -> Bool in
                    guard state.flights[key]?.generation == generation else { return true }
                    state.flights[key]?.task = task
                    return false
                }
                // Every caller left before the task existed.
                if abandoned { task.cancel() }
            }
        } onCancel: {
            leave(key, waiter: waiter)
        }
        // A cancellation that raced with the result leaves a mark nobody will consume.
        state.withLock { _ = $0.cancelledEarly.remove(waiter) }
        return (value, joined.withLock { $0 })
    }

    private func finish(_ key: Key, generation: Int, with value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value?, Never>] in
            guard let flight = state.flights[key], flight.generation == generation else { return [] }
            state.flights[key] = nil
            return Array(flight.waiters.values)
        }
        waiters.forEach { $0.resume(returning: value) }
    }

    private func leave(_ key: Key, waiter: Int) {
        let (continuation, orphaned) = state.withLock { state -> (CheckedContinuation<Value?, Never>?, Task<Void, Never>?) in
            guard let continuation = state.flights[key]?.waiters.removeValue(forKey: waiter) else {
                state.cancelledEarly.insert(waiter)
                return (nil, nil)
            }
            guard let flight = state.flights[key], flight.waiters.isEmpty else { return (continuation, nil) }
            // Nobody waits any more: stop the work, and let the next caller start afresh.
            state.flights[key] = nil
            return (continuation, flight.task)
        }
        continuation?.resume(returning: nil)
        orphaned?.cancel()
    }
}

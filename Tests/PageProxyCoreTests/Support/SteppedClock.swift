import Foundation
import Synchronization

@testable import PageProxyCore

/// Monotonic time that moves only when a test says so: a sleep waits until `advance` passes its instant (or its task
/// is cancelled), so that a test decides when each deadline and each backoff ends, with no waiting.
final class SteppedClock: Sendable {
    private struct Sleeper {
        let until: Duration
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var offset: Duration = .zero
        var sleepers: [Int: Sleeper] = [:]
        var counter = 0
    }

    private let start = ContinuousClock.now
    private let state = Mutex(State())

    var now: ContinuousClock.Instant { start + state.withLock { $0.offset } }

    /// The instant `duration` from the clock's start.
    func at(_ duration: Duration) -> ContinuousClock.Instant { start + duration }

    /// When each pending sleep ends, from the clock's start.
    var pendingWakeUps: [Duration] { state.withLock { $0.sleepers.values.map(\.until) } }

    /// Moves the clock on and wakes every sleep that ends by then.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.offset += duration
            let ended = state.sleepers.filter { $0.value.until <= state.offset }
            for id in ended.keys { state.sleepers[id] = nil }
            return ended.values.map(\.continuation)
        }
        due.forEach { $0.resume(returning: true) }
    }

    private func sleep(until instant: ContinuousClock.Instant) async throws {
        let id = state.withLock { state -> Int in
            state.counter += 1
            return state.counter
        }
        let target = instant - start
        let woke = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    if target <= state.offset { return true }
                    state.sleepers[id] = Sleeper(until: target, continuation: continuation)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLock { $0.sleepers.removeValue(forKey: id) }?.continuation.resume(returning: false)
        }
        if !woke { throw CancellationError() }
    }

    /// The clock for the code under test (its wall side is the system's).
    var clock: PageProxyClock {
        PageProxyClock(now: { self.now }, wallNow: Date.init, sleep: { try await self.sleep(until: $0) })
    }
}

import Dispatch
import Synchronization

/// A sleep until an instant of the continuous clock whose timer a cancellation takes down at once.
///
/// `Task.sleep` leaves a cancelled sleep's timer armed, with its job and Dispatch source (~300 bytes), until its
/// deadline passes (swiftlang/swift#60441). Every page a walk fetches races its answer against two such sleeps (its
/// page timeout, its request's deadline) and cancels them once it is answered: a revalidating walk of 1,000 pages left
/// ~2,500 armed for 30 s and more, and rounds of concurrent walks raised the idle memory by 25–40 MB each (attack11 M2).
/// Here the sleep is a Dispatch timer source of its own, cancelled (and freed) when the task is.
enum CancellableSleep {
    /// Suspends until `deadline`; throws `CancellationError` when the task is cancelled first (or already was).
    static func sleep(until deadline: ContinuousClock.Instant) async throws {
        let timer = Timer()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                timer.start(until: deadline, resuming: continuation)
            }
        } onCancel: {
            timer.cancel()
        }
    }

    /// One sleep's timer and the continuation it resumes: whichever of the timer and the cancellation comes first
    /// takes both, and the other finds nothing left to do.
    private final class Timer: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Void, any Error>?
            var source: (any DispatchSourceTimer)?
            var cancelled = false
        }

        private let state = Mutex(State())

        func start(until deadline: ContinuousClock.Instant, resuming continuation: CheckedContinuation<Void, any Error>) {
            // Made under the lock only when it will be activated: Dispatch traps on releasing a source never activated.
            let armed = state.withLock { state -> (any DispatchSourceTimer)? in
                guard !state.cancelled else { return nil }
                state.continuation = continuation
                state.source = DispatchSource.makeTimerSource(queue: .global())
                return state.source
            }
            guard let source = armed else { return continuation.resume(throwing: CancellationError()) }
            // The handler holds the timer until the source is cancelled, which releases the handler (and the cycle).
            source.setEventHandler { self.finish(throwing: nil) }
            source.schedule(deadline: .now() + ContinuousClock.now.duration(to: deadline).dispatchInterval)
            source.activate()
        }

        func cancel() {
            finish(throwing: CancellationError())
        }

        private func finish(throwing error: (any Error)?) {
            let (continuation, source) = state.withLock { state in
                state.cancelled = state.cancelled || error != nil
                defer { (state.continuation, state.source) = (nil, nil) }
                return (state.continuation, state.source)
            }
            source?.cancel()
            if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
        }
    }
}

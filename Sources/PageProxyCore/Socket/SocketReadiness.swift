import Dispatch
import Synchronization

/// Suspends tasks until a non-blocking descriptor is readable or writable, using Dispatch sources as the event loop.
///
/// Per direction: one Dispatch source, one timer, and at most one waiting task, so a task can watch for the
/// client going away (read) while another writes to it. A waiting task parks a continuation; the source's handler,
/// the timer, `close()` or task cancellation takes it and resumes it exactly once. A source is resumed only while a
/// task waits and suspended as soon as it fires, so an idle socket costs no wake-ups.
// @unchecked: Dispatch sources are not Sendable on Linux. They are resumed, suspended, rescheduled and cancelled
// only while `state`'s lock is held, and the `isActive` flags mirror their suspend counts, so calls stay balanced.
package final class SocketReadiness: @unchecked Sendable {
    /// Why a wait ended.
    package enum Outcome: Sendable, Equatable {
        case ready
        case timedOut
        case cancelled
    }

    /// The direction a task waits for.
    package enum Direction: Sendable {
        case read
        case write
    }

    private struct Slot {
        var waiter: CheckedContinuation<Outcome, Never>?
        var generation = 0
        var deadline: DispatchTime?
        var isActive = false
        /// When the direction's timer is set to fire; nil when it is not set.
        ///
        /// Setting a Dispatch timer wakes libdispatch's manager thread, so the timer is set lazily: a wait whose
        /// deadline is later than the one set leaves it alone (when it fires early, `timerFired` sets it again for
        /// the wait then current), and an ended wait does not unset it. A keep-alive connection that waits with an
        /// idle deadline after every request then sets its timer about once per timeout, not twice per request.
        var timerSetFor: DispatchTime?
    }

    private struct State {
        var read = Slot()
        var write = Slot()
        var isClosed = false

        subscript(direction: Direction) -> Slot {
            get { direction == .read ? read : write }
            set { if direction == .read { read = newValue } else { write = newValue } }
        }
    }

    private let readSource: any DispatchSourceRead
    private let writeSource: any DispatchSourceWrite
    private let readTimer: any DispatchSourceTimer
    private let writeTimer: any DispatchSourceTimer
    private let state = Mutex(State())

    /// Watches `fd`; `onClosed` runs once every source has been cancelled, the moment the descriptor may be closed.
    package init(fd: Int32, queue: DispatchQueue, onClosed: @escaping @Sendable () -> Void) {
        readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        writeSource = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        readTimer = DispatchSource.makeTimerSource(queue: queue)
        writeTimer = DispatchSource.makeTimerSource(queue: queue)
        let cancelled = DispatchGroup()
        for source in [readSource, writeSource, readTimer, writeTimer] as [any DispatchSourceProtocol] {
            cancelled.enter()
            source.setCancelHandler { cancelled.leave() }
        }
        cancelled.notify(queue: queue, execute: onClosed)
        readSource.setEventHandler { [weak self] in self?.sourceFired(.read) }
        writeSource.setEventHandler { [weak self] in self?.sourceFired(.write) }
        readTimer.setEventHandler { [weak self] in self?.timerFired(.read) }
        writeTimer.setEventHandler { [weak self] in self?.timerFired(.write) }
        for timer in [readTimer, writeTimer] {
            timer.schedule(deadline: .distantFuture)
            timer.activate()
        }
    }

    /// Waits until the descriptor is ready in `direction`, the deadline passes, the socket closes, or the task is
    /// cancelled. At most one task waits per direction.
    package func wait(for direction: Direction, deadline: DispatchTime?) async -> Outcome {
        let generation = state.withLock { state -> Int in
            state[direction].generation += 1
            return state[direction].generation
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let accepted = state.withLock { state -> Bool in
                    guard !state.isClosed, state[direction].waiter == nil else { return false }
                    state[direction].waiter = continuation
                    state[direction].deadline = deadline
                    if !state[direction].isActive {
                        state[direction].isActive = true
                        source(direction).resume()
                    }
                    if let deadline { armTimer(direction, for: deadline, &state) }
                    return true
                }
                guard accepted else {
                    continuation.resume(returning: .cancelled)
                    return
                }
                if Task.isCancelled { finish(direction, .cancelled, generation: generation) }
            }
        } onCancel: {
            finish(direction, .cancelled, generation: generation)
        }
    }

    /// Ends every wait with `.cancelled` and cancels the sources; later waits return `.cancelled` at once.
    package func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Outcome, Never>] in
            guard !state.isClosed else { return [] }
            state.isClosed = true
            for source in [readSource, writeSource, readTimer, writeTimer] as [any DispatchSourceProtocol] { source.cancel() }
            // A suspended source never runs its cancel handler: resume it so that the cancellation completes.
            if !state.read.isActive { readSource.resume() }
            if !state.write.isActive { writeSource.resume() }
            state.read.isActive = true
            state.write.isActive = true
            let waiters = [state.read.waiter, state.write.waiter].compactMap { $0 }
            state.read.waiter = nil
            state.write.waiter = nil
            return waiters
        }
        waiters.forEach { $0.resume(returning: .cancelled) }
    }

    private func source(_ direction: Direction) -> any DispatchSourceProtocol {
        direction == .read ? readSource : writeSource
    }

    private func timer(_ direction: Direction) -> any DispatchSourceTimer {
        direction == .read ? readTimer : writeTimer
    }

    private func sourceFired(_ direction: Direction) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard !state.isClosed else { return nil }
            return takeWaiter(direction, &state)
        }
        waiter?.resume(returning: .ready)
    }

    private func timerFired(_ direction: Direction) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            state[direction].timerSetFor = nil
            guard !state.isClosed, let deadline = state[direction].deadline else { return nil }
            // The timer may have been set for an earlier wait: only a deadline that has really passed counts, and
            // a later one gets the timer set again.
            guard DispatchTime.now() >= deadline else {
                armTimer(direction, for: deadline, &state)
                return nil
            }
            return takeWaiter(direction, &state)
        }
        waiter?.resume(returning: .timedOut)
    }

    /// Sets the direction's timer to fire by `deadline`, unless it is already set to fire no later.
    private func armTimer(_ direction: Direction, for deadline: DispatchTime, _ state: inout State) {
        if let setFor = state[direction].timerSetFor, setFor <= deadline { return }
        state[direction].timerSetFor = deadline
        timer(direction).schedule(deadline: deadline)
    }

    private func finish(_ direction: Direction, _ outcome: Outcome, generation: Int) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard state[direction].generation == generation, !state.isClosed else { return nil }
            return takeWaiter(direction, &state)
        }
        waiter?.resume(returning: outcome)
    }

    /// Suspends the direction's source and disarms its timer, returning the waiter if there is one.
    private func takeWaiter(_ direction: Direction, _ state: inout State) -> CheckedContinuation<Outcome, Never>? {
        if state[direction].isActive {
            state[direction].isActive = false
            source(direction).suspend()
        }
        // The timer stays set (see `timerSetFor`): when it fires with no deadline passed, nothing happens.
        state[direction].deadline = nil
        let waiter = state[direction].waiter
        state[direction].waiter = nil
        return waiter
    }
}

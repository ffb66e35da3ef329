import CLinux
import Synchronization

/// Suspends tasks until a non-blocking descriptor is readable or writable, using the process's `EpollLoop`.
///
/// Per direction: at most one waiting task, so a task can watch for the client going away (read) while another
/// writes to it. A waiting task parks a continuation; an event from the loop, a passed deadline, `close()` or task
/// cancellation takes it and resumes it exactly once. The descriptor stays registered, edge-triggered, from `init`
/// to `close()`: a wait makes no system call, and an edge that arrives while nobody waits is remembered, so the
/// next wait returns at once (the caller then tries its system call again, which at worst says "would block").
///
/// Deadlines are set lazily: a wait whose deadline is later than the one the loop already holds for its direction
/// adds nothing (when that earlier deadline passes, the loop is asked again for the wait then current). A keep-alive
/// connection waiting with an idle deadline after every request then adds a deadline about once per timeout.
package final class SocketReadiness: Sendable {
    /// What a read wait's interceptor decided (`ReadInterceptor`).
    package enum Interception: Sendable {
        /// The task goes on waiting, until this deadline (nil: none).
        case keepWaiting(deadline: ContinuousClock.Instant?)
        /// The task wakes (`.woken`): what arrived is its to handle.
        case wake
    }

    /// Why a wait ended.
    package enum Outcome: Sendable, Equatable {
        /// An edge came that no interceptor took: the caller reads (what it announced may be unread).
        case ready
        /// The wait's interceptor took the edge and woke the task (`Interception.wake`): what arrived is the task's.
        case woken
        case timedOut
        case cancelled
    }

    /// The direction a task waits for.
    package enum Direction: Sendable {
        case read
        case write
    }

    private struct Slot {
        var waiter: UnsafeContinuation<Outcome, Never>?
        var generation = 0
        /// The waiter's deadline (on `LoopClock`'s time line).
        var deadline: UInt64?
        /// An edge arrived while nobody waited.
        var isReady = false
        /// The earliest deadline the loop holds for this direction; nil when it holds none that matters.
        var scheduledFor: UInt64?
        /// The waiter's interceptor (`wait(for:deadline:interceptor:)`), cleared when the wait ends.
        var interceptor: (any ReadInterceptor)?
        /// The waiter is out of the slot while its interceptor runs on the loop's thread: nobody else may resume it.
        var intercepting = false
        /// How the wait ended while its interceptor ran (the task was cancelled): it wakes so once that returns.
        var endedWhileIntercepting: Outcome?

        /// Takes the waiter, or remembers the edge when there is none.
        mutating func takeWaiterOrRemember() -> UnsafeContinuation<Outcome, Never>? {
            guard let taken = waiter else {
                isReady = true
                return nil
            }
            waiter = nil
            deadline = nil
            interceptor = nil
            return taken
        }

        mutating func takeWaiter() -> UnsafeContinuation<Outcome, Never>? {
            defer { waiter = nil; deadline = nil; interceptor = nil }
            return waiter
        }
    }

    private struct State {
        var read = Slot()
        var write = Slot()
        var isClosed = false
        var isRegistered = false

        subscript(direction: Direction) -> Slot {
            get { direction == .read ? read : write }
            set { if direction == .read { read = newValue } else { write = newValue } }
        }
    }

    private let fd: Int32
    private let loop: EpollLoop
    private let onClosed: @Sendable () -> Void
    private let state = Mutex(State())
    private let closed = Atomic(false)
    /// Counts parked waits; the count itself is not used. Parking adds to it (releasing) under the lock, and every
    /// resume outside the lock loads it (acquiring) first: the hand-off of the continuation, already ordered by the
    /// lock, is then also visible to ThreadSanitizer, which cannot see the ordering of a contended `Mutex` (its
    /// futex wait is in an uninstrumented library; see scripts/tsan-suppressions.txt).
    private let parkedCount = Atomic(0)
    /// Set for good once an event says the peer hung up or the socket failed (`EPOLLRDHUP`, `EPOLLHUP`, `EPOLLERR`):
    /// from then on the descriptor stays readable (end of stream, or the error) with no further edge to say so.
    private let hungUp = Atomic(false)

    /// Watches `fd` on `loop`; `onClosed` runs once `close()` has removed the descriptor from the loop, the moment
    /// it may be closed.
    package init(fd: Int32, loop: EpollLoop = .shared, onClosed: @escaping @Sendable () -> Void) {
        self.fd = fd
        self.loop = loop
        self.onClosed = onClosed
        let isRegistered = loop.register(self, fd: fd)
        state.withLock { state in
            state.isRegistered = isRegistered
            // A descriptor epoll refuses can never be waited for: its waits end as `.cancelled`, as after close.
            if !isRegistered { state.isClosed = true }
        }
    }

    /// Whether `close()` has been called (read by the loop without the lock, to drop old deadlines).
    var isClosed: Bool { closed.load(ordering: .relaxed) }

    /// Whether an event has said the peer hung up or the socket failed: the socket then stays readable without a
    /// new edge, so a reader that emptied it of data must not wait for one. Set before the event wakes a waiter or
    /// is remembered, so a task that took that event sees it.
    package var peerHungUp: Bool { hungUp.load(ordering: .relaxed) }

    /// Whether a readable edge came while nobody waited, and no wait has taken it yet (for tests: an interceptor's race).
    package var readEdgeRemembered: Bool { state.withLock { $0.read.isReady } }

    /// Waits until the descriptor is ready in `direction`, the deadline passes, the socket closes, or the task is
    /// cancelled. At most one task waits per direction.
    ///
    /// - Parameter interceptor: for a read wait, what takes each readable edge on the loop's thread while the task still
    ///   waits (issue 13: a memo hit answered as its request arrives, with no task run); it keeps the task waiting or
    ///   wakes it (`.woken`). A `.ready` is an edge no interceptor took, and the caller must read: one that came while
    ///   the interceptor ran on the task's own thread (below) may announce bytes it did not read, and under
    ///   edge-triggering no later edge announces them again (review25's HIGH: a request left unread until the idle
    ///   timeout).
    package nonisolated(nonsending) func wait(
        for direction: Direction, deadline: ContinuousClock.Instant?, interceptor: (any ReadInterceptor)? = nil
    ) async -> Outcome {
        var deadline = deadline.map(LoopClock.nanoseconds(at:))
        var interceptedHere = false
        var start: (generation: Int, outcome: Outcome?)
        while true {
            start = state.withLock { state -> (generation: Int, outcome: Outcome?) in
                guard !state.isClosed else { return (0, .cancelled) }
                if state[direction].isReady {
                    state[direction].isReady = false
                    return (0, .ready)
                }
                if let deadline, deadline <= LoopClock.now { return (0, .timedOut) }
                state[direction].generation += 1
                return (state[direction].generation, nil)
            }
            // An edge that came while nobody waited (the task read its bytes without waiting for it; often it has
            // nothing left to announce): the interceptor takes it here, on the task's own thread, once; then the
            // task waits for the next edge as it would have on the loop's (issue 13: else every wait after a read
            // that did not wait ended at once, and the task answered every request itself).
            guard start.outcome == .ready, direction == .read, let interceptor, !interceptedHere else { break }
            interceptedHere = true
            guard case .keepWaiting(let next) = interceptor.readable() else { return .woken }
            deadline = next.map(LoopClock.nanoseconds(at:))
        }
        if let outcome = start.outcome { return outcome }
        let generation = start.generation
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Outcome, Never>) in
                let refused = state.withLock { state -> Outcome? in
                    guard !state.isClosed, state[direction].waiter == nil else { return .cancelled }
                    // An edge may have come since the first look.
                    if state[direction].isReady {
                        state[direction].isReady = false
                        return .ready
                    }
                    parkedCount.add(1, ordering: .releasing)
                    state[direction].waiter = continuation
                    state[direction].deadline = deadline
                    state[direction].interceptor = direction == .read ? interceptor : nil
                    state[direction].endedWhileIntercepting = nil
                    if let deadline { scheduleDeadline(direction, deadline, &state) }
                    return nil
                }
                if let refused {
                    continuation.resume(returning: refused)
                    return
                }
                if Task.isCancelled { finish(direction, .cancelled, generation: generation) }
            }
        } onCancel: {
            finish(direction, .cancelled, generation: generation)
        }
    }

    /// Ends every wait with `.cancelled`, removes the descriptor from the loop, then runs `onClosed`; later waits
    /// return `.cancelled` at once.
    package func close() {
        let ending = state.withLock { state -> (waiters: [UnsafeContinuation<Outcome, Never>], isRegistered: Bool)? in
            guard !closed.load(ordering: .relaxed) else { return nil }
            closed.store(true, ordering: .relaxed)
            state.isClosed = true
            return ([state.read.takeWaiter(), state.write.takeWaiter()].compactMap { $0 }, state.isRegistered)
        }
        guard let (waiters, isRegistered) = ending else { return }
        // Removed from epoll before the descriptor is closed: its number may be reused at once, and the loop must
        // never report (or touch) the next socket that gets it.
        if isRegistered { loop.deregister(self, fd: fd) }
        waiters.forEach { resume($0, returning: .cancelled) }
        onClosed()
    }

    /// Called by the loop with the epoll events of the descriptor.
    func eventsArrived(_ events: UInt32) {
        let failed = events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0
        let readable = failed || events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLPRI.rawValue) != 0
        let writable = failed || events & EPOLLOUT.rawValue != 0
        let hangsUp = failed || events & EPOLLRDHUP.rawValue != 0
        if hangsUp { hungUp.store(true, ordering: .relaxed) }
        let (reader, writer, interceptor) = state.withLock {
            state -> (UnsafeContinuation<Outcome, Never>?, UnsafeContinuation<Outcome, Never>?, (any ReadInterceptor)?) in
            guard !state.isClosed else { return (nil, nil, nil) }
            let writer = writable ? state.write.takeWaiterOrRemember() : nil
            // A hang-up or a failure is the task's to read: its interceptor sees only data.
            if readable, !hangsUp, state.read.waiter != nil, let interceptor = state.read.interceptor {
                state.read.intercepting = true
                return (state.read.waiter.take(), writer, interceptor)
            }
            return (readable ? state.read.takeWaiterOrRemember() : nil, writer, nil)
        }
        resume(writer, returning: .ready)
        if let interceptor, let reader {
            intercept(reader, interceptor)
        } else {
            resume(reader, returning: .ready)
        }
    }

    /// Runs `interceptor` for the read waiter taken out of its slot, then puts the waiter back (its wait goes on) or
    /// resumes it: `.woken` when the interceptor wakes it, `.cancelled` when its task was cancelled or the socket closed
    /// meanwhile (neither could resume it while it was out of the slot). On the loop's thread, as are the slot's
    /// other edges and deadlines: none of them can come while it runs.
    private func intercept(_ reader: UnsafeContinuation<Outcome, Never>, _ interceptor: any ReadInterceptor) {
        // The task's writes before it parked are the interceptor's to read (see `parkedCount`).
        _ = parkedCount.load(ordering: .acquiring)
        let decision = interceptor.readable()
        let outcome = state.withLock { state -> Outcome? in
            state.read.intercepting = false
            let ended = state.isClosed ? .cancelled : state.read.endedWhileIntercepting
            if let ended {
                state.read.endedWhileIntercepting = nil
                state.read.interceptor = nil
                return ended
            }
            guard case .keepWaiting(let deadline) = decision else {
                state.read.interceptor = nil
                return .woken
            }
            let nanoseconds = deadline.map(LoopClock.nanoseconds(at:))
            // Parked again: whoever resumes it next orders the interceptor's writes before the task's reads.
            parkedCount.add(1, ordering: .releasing)
            state.read.waiter = reader
            state.read.deadline = nanoseconds
            if let nanoseconds { scheduleDeadline(.read, nanoseconds, &state) }
            return nil
        }
        if let outcome { resume(reader, returning: outcome) }
    }

    /// Called by the loop once a deadline it was given for `direction` has passed.
    func deadlinePassed(_ direction: Direction, scheduledFor: UInt64, now: UInt64) {
        let waiter = state.withLock { state -> UnsafeContinuation<Outcome, Never>? in
            if state[direction].scheduledFor == scheduledFor { state[direction].scheduledFor = nil }
            guard !state.isClosed, state[direction].waiter != nil, let deadline = state[direction].deadline else { return nil }
            // The deadline given may have been an earlier wait's: only the current wait's own deadline counts,
            // and a later one is given to the loop again.
            guard deadline <= now else {
                scheduleDeadline(direction, deadline, &state)
                return nil
            }
            return state[direction].takeWaiter()
        }
        resume(waiter, returning: .timedOut)
    }

    /// Gives the loop `deadline` unless it already holds one for this direction that is no later.
    private func scheduleDeadline(_ direction: Direction, _ deadline: UInt64, _ state: inout State) {
        if let scheduled = state[direction].scheduledFor, scheduled <= deadline { return }
        state[direction].scheduledFor = deadline
        loop.schedule(self, direction, at: deadline)
    }

    private func finish(_ direction: Direction, _ outcome: Outcome, generation: Int) {
        let waiter = state.withLock { state -> UnsafeContinuation<Outcome, Never>? in
            guard state[direction].generation == generation, !state.isClosed else { return nil }
            // Out of the slot while its interceptor runs: `intercept` resumes it with `.cancelled` after.
            if state[direction].intercepting { state[direction].endedWhileIntercepting = outcome }
            return state[direction].takeWaiter()
        }
        resume(waiter, returning: outcome)
    }

    /// Resumes a continuation taken from a slot under the lock (see `parkedCount`).
    private func resume(_ waiter: UnsafeContinuation<Outcome, Never>?, returning outcome: Outcome) {
        guard let waiter else { return }
        _ = parkedCount.load(ordering: .acquiring)
        waiter.resume(returning: outcome)
    }
}

/// Takes a socket's readable edges on the loop's thread while a task waits to read it (`SocketReadiness.wait(for:deadline:
/// interceptor:)`): a connection's memo hits are answered there as their requests arrive, with no task run (issue 13).
package protocol ReadInterceptor: AnyObject, Sendable {
    /// Called on the loop's thread for each readable edge (data, not a hang-up) while the task waits; the task cannot
    /// run until this returns, nor can the wait end otherwise (a cancellation or a close takes effect after it). It must
    /// not block: every socket waits while it runs. Also called once by the waiting task itself, on its own thread, for
    /// an edge remembered from before its wait.
    func readable() -> SocketReadiness.Interception
}

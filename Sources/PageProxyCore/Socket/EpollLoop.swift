import CLinux
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One epoll instance and one thread that waits on it: every socket's readiness and deadlines in one place.
///
/// Each descriptor is registered once, edge-triggered for reading and writing, and stays registered until it is
/// closed: a wait costs no system call, and an event finds its `SocketReadiness` through the pointer stored in
/// the registration (not the descriptor number, which the kernel reuses as soon as the descriptor is closed).
/// The loop thread hands events and passed deadlines to the readiness objects, which resume the waiting tasks.
/// It is also a `TaskExecutor`: a task that prefers it (a server connection while it reads, parses and answers
/// from memory: `Connection`) runs its jobs on the loop's thread after each batch of events, so a task the loop
/// wakes runs without a hop to the cooperative pool; such jobs must neither block nor run long (they would stall
/// every socket). Deadlines sit in a heap the loop reads before it sleeps, and
/// an `eventfd` wakes it when a new deadline is earlier than the one it sleeps until, or a job comes while it sleeps.
///
/// Lifetime: the registration holds a retain on its `SocketReadiness`. Deregistering removes the descriptor from
/// epoll first (so the descriptor may be closed right after), and the loop gives the retain back only after it has
/// handled the batch of events it was working on, which may still point at the object.
package final class EpollLoop: TaskExecutor, Sendable {
    /// The loop every socket of the process uses.
    package static let shared: EpollLoop = {
        do {
            return try EpollLoop()
        } catch {
            // Without epoll no socket can wait: nothing useful can run.
            fatalError("cannot start the socket event loop: \(error)")
        }
    }()

    private struct State {
        var deadlines = DeadlineHeap<(readiness: SocketReadiness, direction: SocketReadiness.Direction)>()
        /// When the loop wakes by itself (on `LoopClock`'s time line); 0 while it is awake, so that nobody wakes it
        /// then.
        var sleepsUntil: UInt64 = 0
        /// Registrations removed from epoll whose retain the loop gives back after its current batch.
        var deregistered: [Unmanaged<SocketReadiness>] = []
        var registeredCount = 0
        var isStopping = false
        /// Jobs of tasks that prefer this loop, to run after the current batch of events.
        var jobs: [UnownedJob] = []
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    private let state = Mutex(State())
    /// Past this many deadlines, those of closed sockets are dropped once they outnumber the open sockets 4 to 1.
    private let compactionFloor: Int
    /// The registration data of `wakeFD`; every other registration's data is a non-null object pointer.
    private static let wakeToken: UInt64 = 0
    private static let batchSize = 256
    /// How many times the loop runs the jobs enqueued meanwhile before it looks for events again.
    private static let jobRounds = 16
    /// The loop thread's `pthread_self()`, once it runs.
    private let thread = Atomic<UInt>(0)

    /// A loop of its own, with its own thread; tests use one to watch the loop's bookkeeping, then `stop()` it.
    package init(compactionFloor: Int = 1024) throws(SocketError) {
        self.compactionFloor = compactionFloor
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw .makeFailed("epoll_create1") }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw .makeFailed("eventfd") }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.u64 = Self.wakeToken
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else { throw .makeFailed("epoll_ctl") }
        let thread = Thread { [self] in run() }
        thread.name = "pageproxy.epoll"
        thread.start()
    }

    deinit {
        _ = Glibc.close(wakeFD)
        _ = Glibc.close(epollFD)
    }

    /// How many deadlines the loop holds, including those of waits that have ended (for tests).
    package var scheduledDeadlineCount: Int { state.withLock { $0.deadlines.count } }

    /// Ends the loop's thread after the batch it is handling; sockets still registered then are never reported.
    package func stop() {
        state.withLock { $0.isStopping = true }
        _ = eventfd_write(wakeFD, 1)
    }

    /// Whether the caller runs on the loop's thread.
    package var isCurrentThread: Bool { thread.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Runs `job` on the loop's thread after the batch of events it is handling, or at once if it sleeps. Jobs left
    /// when `stop()` ends the loop never run: only tests stop a loop, one no connection runs on.
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let sleeps = state.withLock { state -> Bool in
            state.jobs.append(job)
            return state.sleepsUntil != 0
        }
        if sleeps { _ = eventfd_write(wakeFD, 1) }
    }

    /// Watches `fd` for `readiness` until `deregister`; false if epoll refuses the descriptor.
    func register(_ readiness: SocketReadiness, fd: Int32) -> Bool {
        let retained = Unmanaged.passRetained(readiness)
        var event = epoll_event()
        // Edge-triggered: an event reports a change once; a waiter always tries the system call before waiting,
        // and `SocketReadiness` remembers an edge that came while nobody waited.
        event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
        event.data.u64 = UInt64(UInt(bitPattern: retained.toOpaque()))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else {
            retained.release()
            return false
        }
        state.withLock { $0.registeredCount += 1 }
        return true
    }

    /// Stops watching `fd`; once this returns the descriptor may be closed (and its number reused).
    func deregister(_ readiness: SocketReadiness, fd: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)
        state.withLock { state in
            state.deregistered.append(Unmanaged.passUnretained(readiness))
            state.registeredCount -= 1
        }
    }

    /// Asks for `readiness.deadlinePassed(direction, ...)` once `deadline` (on `LoopClock`'s time line) has passed.
    func schedule(_ readiness: SocketReadiness, _ direction: SocketReadiness.Direction, at deadline: UInt64) {
        let wakesLater = state.withLock { state -> Bool in
            state.deadlines.insert((readiness, direction), at: deadline)
            guard deadline < state.sleepsUntil else { return false }
            state.sleepsUntil = deadline
            return true
        }
        if wakesLater { _ = eventfd_write(wakeFD, 1) }
    }

    private func run() {
        let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: Self.batchSize)
        defer { events.deallocate() }
        thread.store(UInt(pthread_self()), ordering: .relaxed)
        // `Thread.name` set before `start()` does not reach the kernel on Linux: the thread kept the name of the
        // Dispatch thread that made the loop. At most 15 bytes.
        _ = pageproxy_name_this_thread("pageproxy.epoll")
        var released: [Unmanaged<SocketReadiness>] = []
        var jobs: [UnownedJob] = []
        while true {
            guard let timeout = prepareToSleep(releasing: &released) else { return }
            let count = epoll_wait(epollFD, events.baseAddress, Int32(Self.batchSize), timeout)
            let now = LoopClock.now
            let due = state.withLock { state in
                state.sleepsUntil = 0
                return state.deadlines.removeDue(at: now)
            }
            for event in events.prefix(max(0, Int(count))) {
                guard event.data.u64 != Self.wakeToken, let pointer = UnsafeRawPointer(bitPattern: UInt(event.data.u64)) else {
                    var counter: eventfd_t = 0
                    _ = eventfd_read(wakeFD, &counter)
                    continue
                }
                Unmanaged<SocketReadiness>.fromOpaque(pointer).takeUnretainedValue().eventsArrived(event.events)
            }
            for entry in due {
                entry.value.readiness.deadlinePassed(entry.value.direction, scheduledFor: entry.deadline, now: now)
            }
            runJobs(&jobs)
        }
    }

    /// Runs the jobs enqueued so far and those they enqueue, for a bounded number of rounds: tasks that keep waking
    /// each other must not keep sockets' events waiting (what is left runs after an `epoll_wait` that does not sleep).
    private func runJobs(_ jobs: inout [UnownedJob]) {
        let executor = asUnownedTaskExecutor()
        for _ in 0..<Self.jobRounds {
            state.withLock { swap(&jobs, &$0.jobs) }
            if jobs.isEmpty { return }
            for job in jobs { job.runSynchronously(on: executor) }
            jobs.removeAll(keepingCapacity: true)
        }
    }

    /// Gives back the retains of registrations removed so far (every batch that could point at them has been
    /// handled), drops the deadlines of closed sockets when they outnumber the open ones, and returns how long epoll
    /// may sleep (milliseconds, -1 for ever, 0 while jobs wait); nil once `stop()` was called.
    private func prepareToSleep(releasing released: inout [Unmanaged<SocketReadiness>]) -> Int32? {
        var dropped = DeadlineHeap<(readiness: SocketReadiness, direction: SocketReadiness.Direction)>()
        let wakeAt = state.withLock { state -> UInt64? in
            swap(&released, &state.deregistered)
            if state.isStopping {
                // Their sockets hold this loop: keeping them would keep it (and its descriptors) for ever.
                swap(&dropped, &state.deadlines)
                return nil
            }
            if state.deadlines.count > compactionFloor, state.deadlines.count > 4 * state.registeredCount {
                state.deadlines.removeAll { $0.readiness.isClosed }
            }
            // Jobs wait: look for events without sleeping (`sleepsUntil` stays 0, so nobody wakes the loop for more).
            if !state.jobs.isEmpty { return 0 }
            state.sleepsUntil = state.deadlines.earliest ?? .max
            return state.sleepsUntil
        }
        // Released outside the lock: the last release runs the readiness's deinit.
        released.forEach { $0.release() }
        released.removeAll(keepingCapacity: true)
        guard let wakeAt else { return nil }
        guard wakeAt != .max else { return -1 }
        let now = LoopClock.now
        guard wakeAt > now else { return 0 }
        // Rounded up, so that the loop does not wake just before the deadline and sleep again for nothing.
        let milliseconds = (wakeAt - now + 999_999) / 1_000_000
        return Int32(clamping: milliseconds)
    }
}

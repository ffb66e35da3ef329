import Synchronization
import PageProxyCore

/// The open connections of a server: counts them for the cap, closes the idle ones when draining, and lets the
/// server wait until the last one has gone.
package final class ConnectionRegistry: Sendable {
    /// One open connection's place in the registry. Its connection marks it idle or busy without the registry's
    /// lock or a lookup (twice a request); it holds the registry until `remove` takes it out of the entries.
    package final class Membership: Sendable {
        package let socket: AsyncSocket
        private let registry: ConnectionRegistry
        /// Sequentially consistent with `isDrainingFlag`: a connection that goes idle as the drain begins either
        /// sees the drain or is seen idle by it (maybe both; a socket may be closed twice).
        fileprivate let isIdle = Atomic<Bool>(true)

        fileprivate init(socket: AsyncSocket, registry: ConnectionRegistry) {
            self.socket = socket
            self.registry = registry
        }

        /// Marks the connection as waiting between requests (true) or answering one (false). Returns false when the
        /// server drains and the idle connection should close instead of waiting.
        package func setIdle(_ isIdle: Bool) -> Bool {
            self.isIdle.store(isIdle, ordering: .sequentiallyConsistent)
            return !(isIdle && registry.isDrainingFlag.load(ordering: .sequentiallyConsistent))
        }
    }

    private struct State {
        var entries: [ObjectIdentifier: Membership] = [:]
        var accepted = 0
        /// Tasks waiting for the last connection to go, by a number so that a cancelled wait can take one back.
        var emptyWaiters: [Int: EmptyWaiter] = [:]
        var nextWaiter = 0
    }

    /// A wait for the last connection, from its number's allocation to its end (cancellation may come first).
    private enum EmptyWaiter {
        case allocated
        case waiting(CheckedContinuation<Bool, Never>)
        case cancelled
    }

    private let state = Mutex(State())
    /// Set once, under the lock (so `add` sees it), read without it by connections going idle.
    private let isDrainingFlag = Atomic<Bool>(false)
    /// Set once by `cutAll()`, before the server cancels the connections' tasks (sequentially consistent: a task that
    /// sees its cancellation sees this too); read without a lock by every write of every answer.
    private let hasCutAllFlag = Atomic<Bool>(false)
    /// Answers say `Connection: close` (the drain delay): clients reconnect, to another replica once they can.
    /// Read without the lock several times a request.
    private let closesAfterEachAnswerFlag = Atomic<Bool>(false)
    /// What a wait's time limit is measured on (tests pass a clock they move).
    private let clock: PageProxyClock

    package init(clock: PageProxyClock = .system) {
        self.clock = clock
    }

    package var count: Int { state.withLock { $0.entries.count } }
    /// Connections accepted since the server started (tests prove keep-alive reuse from it).
    package var acceptedTotal: Int { state.withLock { $0.accepted } }
    package var isDraining: Bool { isDrainingFlag.load(ordering: .sequentiallyConsistent) }
    /// Whether a connection should close after its answer: the server drains, or is in its drain delay.
    package var closesAfterEachAnswer: Bool { isDraining || closesAfterEachAnswerFlag.load(ordering: .sequentiallyConsistent) }
    /// Whether the shutdown has cut every answer still unfinished (the grace period ended): from then on they write
    /// only the shutdown's own ending (`ResponseWriter.endCutByShutdown`).
    package var hasCutAll: Bool { hasCutAllFlag.load(ordering: .sequentiallyConsistent) }

    /// Adds a connection, idle, unless the server drains or is at `limit`; returns its membership if it was added.
    package func add(_ socket: AsyncSocket, limit: Int) -> Membership? {
        state.withLock { state in
            guard !isDraining, state.entries.count < limit else { return nil }
            let membership = Membership(socket: socket, registry: self)
            state.entries[ObjectIdentifier(socket)] = membership
            state.accepted += 1
            return membership
        }
    }

    package func remove(_ socket: AsyncSocket) {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.entries[ObjectIdentifier(socket)] = nil
            guard state.entries.isEmpty else { return [] }
            defer { state.emptyWaiters = [:] }
            return state.emptyWaiters.values.compactMap { if case .waiting(let continuation) = $0 { continuation } else { nil } }
        }
        waiters.forEach { $0.resume(returning: true) }
    }

    /// Keeps accepting, but every connection closes after its next answer.
    package func closeAfterEachAnswer() {
        closesAfterEachAnswerFlag.store(true, ordering: .sequentiallyConsistent)
    }

    /// Starts draining: no new connections, and every idle one is closed now.
    package func beginDraining() {
        let idle = state.withLock { state -> [AsyncSocket] in
            isDrainingFlag.store(true, ordering: .sequentiallyConsistent)
            return state.entries.values.filter { $0.isIdle.load(ordering: .sequentiallyConsistent) }.map(\.socket)
        }
        idle.forEach { $0.close() }
    }

    /// Marks every unfinished answer cut by the shutdown (the server then cancels the tasks behind them): a writer
    /// refuses its responder's writes from now on, so that what the cancelled work would still send (an error for the
    /// page it lost) never reaches a client, and its connection writes the shutdown's ending instead.
    package func cutAll() {
        hasCutAllFlag.store(true, ordering: .sequentiallyConsistent)
    }

    /// Closes every connection, busy or not (a task that did not end after `cutAll()` and its cancellation).
    package func closeAll() {
        cutAll()
        let all = state.withLock { state in state.entries.values.map(\.socket) }
        all.forEach { $0.close() }
    }

    /// Returns true once no connection is open, or false when `limit` passes first on the registry's clock (or the
    /// waiting task is cancelled).
    @discardableResult
    package func waitUntilEmpty(limit: Duration) async -> Bool {
        // Already empty: true, without racing the limit's clock (which may end at once) in the group below.
        if state.withLock({ $0.entries.isEmpty }) { return true }
        let deadline = clock.now() + limit
        let clock = self.clock
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask { await self.waitUntilEmpty() }
            group.addTask {
                try? await clock.sleep(deadline)
                return nil
            }
            // The first child to end decides; the other is cancelled (a cancelled sleep returns, a cancelled wait resumes).
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? false
        }
    }

    /// Returns true once no connection is open; false when the waiting task is cancelled first.
    private func waitUntilEmpty() async -> Bool {
        let waiter = state.withLock { state -> Int? in
            if state.entries.isEmpty { return nil }
            state.nextWaiter += 1
            state.emptyWaiters[state.nextWaiter] = .allocated
            return state.nextWaiter
        }
        guard let waiter else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool? in
                    switch state.emptyWaiters[waiter] {
                    case .allocated?:
                        state.emptyWaiters[waiter] = .waiting(continuation)
                        return nil
                    case .cancelled?:
                        state.emptyWaiters[waiter] = nil
                        return false
                    case .waiting?, nil:
                        // Gone: the last connection went meanwhile.
                        return true
                    }
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            // Whoever takes the waiter out resumes it: the last connection's removal or this cancellation, never both.
            let cancelled = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                switch state.emptyWaiters[waiter] {
                case .waiting(let continuation)?:
                    state.emptyWaiters[waiter] = nil
                    return continuation
                case .allocated?:
                    state.emptyWaiters[waiter] = .cancelled
                    return nil
                case .cancelled?, nil:
                    return nil
                }
            }
            cancelled?.resume(returning: false)
        }
    }
}

import PageProxyCore
import Synchronization

/// The connection's watch for its client closing while an answer is prepared: once armed (by the responder, for
/// answers that wait on upstreams), a client that leaves cancels the connection's work at once (DESIGN.md: a client
/// that disconnects cancels its upstream work).
///
/// `guarding(_:)` runs the connection's work as a child task and the watch beside it in the same task group, so the
/// cancellation is structural: the group cancels its child, nobody holds a task handle. An unarmed request costs no
/// task. The connection stops the watch after each answer, before it reads the next request, so the watch never
/// reads (nor races with) a pipelined request.
package final class DisconnectWatch: Sendable {
    /// What the watching side waits for next.
    private enum Event {
        case armed
        /// The peer closed (true) or sent data (false) while armed.
        case peer(closed: Bool)
        case stopped
        case workEnded
    }

    private struct State {
        var isArmed = false
        var isWorkEnded = false
        /// Events not yet taken by the watching side; at most a few.
        var events: [Event] = []
        var watcher: CheckedContinuation<Event, Never>?
        /// `stop()` waits here until the watch no longer touches the socket.
        var stopWaiter: CheckedContinuation<Void, Never>?
    }

    private let socket: AsyncSocket
    private let state = Mutex(State())

    package init(socket: AsyncSocket) {
        self.socket = socket
    }

    /// Runs `work` (the connection's request loop) with the watch beside it; returns once `work` has returned, early
    /// when it was cancelled because its client left.
    package func guarding(_ work: @escaping @Sendable () async -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await work()
                self.post(.workEnded)
            }
            while true {
                switch await nextEvent() {
                case .workEnded:
                    return
                case .armed:
                    if await watchUntilStopped() { group.cancelAll() }
                    if state.withLock({ $0.isWorkEnded }) { return }
                case .peer, .stopped:
                    continue
                }
            }
        }
    }

    /// Starts watching; a second call before `stop()` does nothing.
    package func arm() {
        let watcher = state.withLock { state -> CheckedContinuation<Event, Never>? in
            guard !state.isArmed, !state.isWorkEnded else { return nil }
            state.isArmed = true
            return Self.deliver(.armed, in: &state)
        }
        watcher?.resume(returning: .armed)
    }

    /// Stops watching and waits until the watch no longer touches the socket; `arm()` may start it again.
    package nonisolated(nonsending) func stop() async {
        // An unarmed watch (most answers) is stopped by one look under the lock.
        guard state.withLock({ $0.isArmed }) else { return }
        await withCheckedContinuation { continuation in
            let (watcher, isReleased) = state.withLock { state -> (CheckedContinuation<Event, Never>?, Bool) in
                // The watch may have ended meanwhile (its client left): then there is nothing to wait for.
                guard state.isArmed else { return (nil, true) }
                state.stopWaiter = continuation
                return (Self.deliver(.stopped, in: &state), false)
            }
            if isReleased { continuation.resume() }
            watcher?.resume(returning: .stopped)
        }
    }

    /// Watches the socket until `stop()`; returns whether the client left meanwhile (the work is then cancelled).
    private func watchUntilStopped() async -> Bool {
        let socket = self.socket
        let clientLeft = await withTaskGroup(of: Void.self) { peer -> Bool in
            peer.addTask { self.post(.peer(closed: await socket.waitForPeerClose())) }
            var clientLeft = false
            loop: while true {
                switch await nextEvent() {
                case .peer(let closed):
                    // Data instead of a close is the next request: stop looking, wait for `stop()`.
                    clientLeft = closed
                    if closed { break loop }
                case .stopped, .workEnded:
                    peer.cancelAll()
                    break loop
                case .armed:
                    continue
                }
            }
            await peer.waitForAll()
            return clientLeft
        }
        // The peek has ended: release `stop()`, now or when it comes.
        let stopWaiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.isArmed = false
            // A cancelled answer still stops the watch: drop the stale `.stopped` or `.peer` so the next arm is fresh.
            state.events.removeAll { if case .workEnded = $0 { false } else { true } }
            defer { state.stopWaiter = nil }
            return state.stopWaiter
        }
        stopWaiter?.resume()
        return clientLeft
    }

    private func post(_ event: Event) {
        let watcher = state.withLock { state -> CheckedContinuation<Event, Never>? in
            if case .workEnded = event { state.isWorkEnded = true }
            return Self.deliver(event, in: &state)
        }
        watcher?.resume(returning: event)
    }

    /// Hands `event` to a waiting watcher (returned, to be resumed outside the lock) or queues it.
    private static func deliver(_ event: Event, in state: inout State) -> CheckedContinuation<Event, Never>? {
        guard let watcher = state.watcher else {
            state.events.append(event)
            return nil
        }
        state.watcher = nil
        return watcher
    }

    private func nextEvent() async -> Event {
        await withCheckedContinuation { continuation in
            let queued = state.withLock { state -> Event? in
                guard state.events.isEmpty else { return state.events.removeFirst() }
                state.watcher = continuation
                return nil
            }
            if let queued { continuation.resume(returning: queued) }
        }
    }
}

import PageProxyCore
import Synchronization

/// The connection's watch for its client closing while an answer is prepared: once armed (by the responder, for
/// answers that wait on upstreams), a client that leaves cancels the request's work at once (DESIGN.md: a client
/// that disconnects cancels its upstream work). The connection stops it after the answer, before it reads the next
/// request, so the watch never reads (nor races with) a pipelined request.
package final class DisconnectWatch: Sendable {
    private let socket: AsyncSocket
    private let onDisconnect: @Sendable () -> Void
    private let task = Mutex<Task<Void, Never>?>(nil)

    package init(socket: AsyncSocket, onDisconnect: @escaping @Sendable () -> Void) {
        self.socket = socket
        self.onDisconnect = onDisconnect
    }

    /// Starts watching; a second call before `stop()` does nothing.
    package func arm() {
        task.withLock { task in
            guard task == nil else { return }
            let socket = self.socket
            let onDisconnect = self.onDisconnect
            task = Task {
                if await socket.waitForPeerClose() { onDisconnect() }
            }
        }
    }

    /// Stops watching and waits until the watch no longer touches the socket; `arm()` may start it again.
    package func stop() async {
        guard let running = task.withLock({ task in defer { task = nil }; return task }) else { return }
        running.cancel()
        await running.value
    }
}

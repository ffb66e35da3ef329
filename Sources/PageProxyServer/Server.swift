import Dispatch
import PageProxyCore
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server: a listener, a registry of open connections, and one child task per connection in a
/// discarding task group fed by the listener (FlyingFox's `listenForConnections`).
///
/// Sockets are non-blocking and the socket layer's epoll loop reports readiness, so a connection waiting for a slow client holds
/// no thread: thousands of idle keep-alive connections cost memory, not threads (see README, "I/O design").
package final class Server: Sendable {
    package let port: Int
    private let listener: Listener
    private let registry: ConnectionRegistry
    /// The task running `serve`: the parent of every connection's task, cancelled only by a forced stop.
    private let serving: Task<Void, Never>

    /// Binds and starts serving at once; each request's log line is written at `requestLogLevel`; the drain's grace
    /// is measured on `clock`.
    package init(
        address: SocketAddress, limits: ServerLimits, responder: any HTTPResponder, logger: Logger, requestLogLevel: LogLevel = .info,
        clock: PageProxyClock = .system
    ) throws(SocketError) {
        let registry = ConnectionRegistry(clock: clock)
        let listener = try Listener(address: address)
        self.registry = registry
        self.listener = listener
        port = listener.port
        serving = Task {
            await Self.serve(
                listener.accepted, registry: registry, limits: limits, responder: responder, logger: logger, requestLogLevel: requestLogLevel)
        }
    }

    /// Runs one child task per accepted client until the listener closes, then until the last connection ends.
    private static func serve(
        _ accepted: AcceptedClients, registry: ConnectionRegistry, limits: ServerLimits, responder: any HTTPResponder, logger: Logger,
        requestLogLevel: LogLevel
    ) async {
        await withDiscardingTaskGroup { group in
            for await client in accepted {
                if let bytes = limits.sendBufferBytes { client.setSendBufferSize(bytes) }
                let socket = AsyncSocket(socket: client)
                // A client past the descriptor line is refused like one past the cap: the process keeps a reserve.
                guard DescriptorReserve.admits(client.fd), let membership = registry.add(socket, limit: limits.maxConnections) else {
                    let bytes = refuse(socket, with: refusal(draining: registry.isDraining))
                    responder.refused(status: .serviceUnavailable, bytes: bytes)
                    continue
                }
                let connection = Connection(
                    socket: socket, responder: responder, registry: registry, membership: membership, limits: limits, logger: logger,
                    requestLogLevel: requestLogLevel)
                group.addTask { await connection.run() }
            }
        }
    }

    package var openConnections: Int { registry.count }
    package var acceptedConnections: Int { registry.acceptedTotal }
    package var isDraining: Bool { registry.isDraining }

    /// From now on every connection closes after its current or next answer; new ones are still accepted.
    package func closeAfterEachAnswer() {
        registry.closeAfterEachAnswer()
    }

    /// Stops accepting, lets in-flight responses finish for up to `grace`, then closes whatever is left.
    ///
    /// The last wait is bounded too: a task that does not end when cancelled must not keep the process alive.
    package func stop(grace: Duration) async {
        listener.close()
        registry.beginDraining()
        if await registry.waitUntilEmpty(limit: grace) { return }
        // The answers are marked cut before their tasks are cancelled: a write the cancelled work still tries (an error
        // for the page it lost) is refused, so it cannot reach the client as if the upstream had failed. Each task's
        // connection then writes the shutdown's own ending (a stream's error line, or a 503 for an answer not begun;
        // contract22 F5) and closes. A task that has not ended within a second has its socket closed under it.
        registry.cutAll()
        serving.cancel()
        if await registry.waitUntilEmpty(limit: Self.cutEndingTime) { return }
        registry.closeAll()
        await registry.waitUntilEmpty(limit: Self.cutEndingTime)
    }

    /// How long the cancelled tasks get to write their endings, then how long closed ones get to end: at most 2 s
    /// in all after the grace period (README, "Container").
    static let cutEndingTime = Duration.seconds(1)

    /// Why a client accepted but not served is refused: the server is at its connection limit (or its descriptor
    /// line), or, accepted just as the listener closed, it is shutting down (review24 E6: that was reported as a full
    /// server). Either way a retry may succeed: shortly here, or at once on another instance.
    static func refusal(draining: Bool) -> HTTPError {
        var retry = HTTPHeaders()
        retry.set("Retry-After", "1")
        return draining
            ? HTTPError(.serviceUnavailable, code: "shutting_down", message: "the server is shutting down; retry (another instance may answer)", headers: retry)
            : HTTPError(.serviceUnavailable, code: "too_many_connections", message: "the server is at its connection limit; retry shortly", headers: retry)
    }

    /// A client that cannot be served gets a quick 503 instead of a hang; one non-blocking write, then close.
    private static func refuse(_ socket: AsyncSocket, with refusal: HTTPError) -> Int {
        let bytes = ErrorResponse.closingResponse(for: refusal)
        // Only this function has the socket (no registry, no task), so nothing can close it under the write; it goes
        // through `withOpenDescriptor` all the same, as every call on a descriptor does (flaky17).
        let written = socket.withOpenDescriptor { _ in bytes.withUnsafeBytes { try? socket.socket.write($0) } }
        socket.close()
        return (written ?? nil) ?? 0
    }
}

import PageProxyCore

/// Accepts connections on a listening socket as the socket layer's event loop reports them, and hands each to
/// `accepted`.
///
/// The listening socket is an `AsyncSocket` like any other: one task accepts everything pending, then waits until
/// the socket is readable again, and `close()` ends that wait and releases the descriptor. Every `accept` runs
/// inside `withOpenDescriptor`, so none can reach the descriptor's number after it was closed and reused.
package final class Listener: Sendable {
    package let port: Int
    /// Every accepted client, in order; the sequence ends once `close()` has closed the listening socket.
    package let accepted: AcceptedClients
    /// Accepted clients the server has not taken yet.
    package var clientsWaiting: Int { accepted.held.count }
    private let listening: AsyncSocket

    /// When `accept` fails for another reason than "nothing pending" (say, out of descriptors), the connection stays
    /// queued but no new event will say so: try again after this long instead of waiting for the next client.
    private static let retryAfterFailure: Duration = .milliseconds(100)

    /// Binds `address` and starts accepting at once; clients wait in `accepted` until the server takes them.
    package init(address: SocketAddress) throws(SocketError) {
        let socket = try Socket.makeListening(on: address)
        port = socket.localPort() ?? address.port
        let (tickets, clients) = AsyncStream.makeStream(of: HeldClients.Ticket.self)
        let held = HeldClients()
        // The consumer's task cancelled while it waited, or its iterator dropped: those still held are closed.
        clients.onTermination = { termination in
            if case .cancelled = termination { held.abandon() }
        }
        accepted = AcceptedClients(stream: tickets, held: held)
        let listening = AsyncSocket(socket: socket)
        self.listening = listening
        Task {
            defer { clients.finish() }
            while true {
                // Accept everything pending: one event may stand for many connections.
                var failed = false
                while let accepted = listening.withOpenDescriptor({ _ in Result { () throws(SocketError) in try socket.accept() } }) {
                    guard case .success(let client?) = accepted else {
                        if case .failure = accepted { failed = true }
                        break
                    }
                    // One the server will not take (its serving was cancelled by a forced stop) is closed here: dropped,
                    // its descriptor would stay open for the process's life.
                    guard let ticket = held.hold(client) else {
                        client.close()
                        continue
                    }
                    if case .terminated = clients.yield(ticket) { held.take(ticket)?.close() }
                }
                let deadline = failed ? ContinuousClock.now + Self.retryAfterFailure : nil
                do {
                    try await listening.waitUntilReadable(deadline: deadline)
                } catch SocketError.timedOut {
                    continue
                } catch {
                    return
                }
            }
        }
    }

    /// Stops accepting and closes the listening socket; new clients are refused by the kernel.
    package func close() {
        listening.close()
    }
}

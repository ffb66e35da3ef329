import Dispatch
import PageProxyCore

/// Accepts connections on a listening socket as a Dispatch read source reports them, and hands each to `accepted`.
// @unchecked: Dispatch sources are not Sendable on Linux; `source` is set once in `init`, and only `cancel()`
// (idempotent in Dispatch) touches it afterwards.
package final class Listener: @unchecked Sendable {
    package let port: Int
    /// Every accepted client, in order; the stream ends once `close()` has closed the listening socket.
    package let accepted: AsyncStream<Socket>
    private let source: any DispatchSourceRead

    /// Binds `address` and starts accepting at once; clients wait in `accepted` until the server takes them.
    package init(address: SocketAddress) throws(SocketError) {
        let socket = try Socket.makeListening(on: address)
        port = socket.localPort() ?? address.port
        let (accepted, clients) = AsyncStream.makeStream(of: Socket.self)
        self.accepted = accepted
        let queue = DispatchQueue(label: "pageproxy.listener")
        source = DispatchSource.makeReadSource(fileDescriptor: socket.fd, queue: queue)
        source.setEventHandler {
            // Accept everything pending: one event may stand for many connections.
            while let client = try? socket.accept() {
                clients.yield(client)
            }
        }
        source.setCancelHandler {
            socket.close()
            clients.finish()
        }
        source.activate()
    }

    /// Stops accepting and closes the listening socket; new clients are refused by the kernel.
    package func close() {
        source.cancel()
    }
}

import Dispatch
import PageProxyCore

/// Accepts connections on a listening socket as a Dispatch read source reports them.
// @unchecked: Dispatch sources are not Sendable on Linux; `source` is set once in `init`, and only `cancel()`
// (idempotent in Dispatch) touches it afterwards.
package final class Listener: @unchecked Sendable {
    package let port: Int
    private let socket: Socket
    private let source: any DispatchSourceRead

    /// Binds `address` and starts accepting; `onAccept` runs on a Dispatch queue for each new connection.
    package init(address: SocketAddress, onAccept: @escaping @Sendable (Socket) -> Void) throws(SocketError) {
        socket = try Socket.makeListening(on: address)
        port = socket.localPort() ?? address.port
        let queue = DispatchQueue(label: "pageproxy.listener")
        source = DispatchSource.makeReadSource(fileDescriptor: socket.fd, queue: queue)
        let socket = socket
        source.setEventHandler {
            // Accept everything pending: one event may stand for many connections.
            while let client = try? socket.accept() {
                onAccept(client)
            }
        }
        source.setCancelHandler { socket.close() }
        source.activate()
    }

    /// Stops accepting and closes the listening socket; new clients are refused by the kernel.
    package func close() {
        source.cancel()
    }
}

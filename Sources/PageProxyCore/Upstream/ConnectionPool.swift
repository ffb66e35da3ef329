import Dispatch
import Synchronization

/// Idle keep-alive connections to upstreams, a bounded stack per origin.
///
/// The most recently used connection is handed out first (it is the least likely to have been closed by the
/// upstream's idle timeout); past `maxIdlePerOrigin` a returned connection is closed instead of kept.
package final class ConnectionPool: Sendable {
    private let idle = Mutex<[PageURL.Origin: [AsyncSocket]]>([:])
    private let opened = Mutex(0)
    package let maxIdlePerOrigin: Int

    package init(maxIdlePerOrigin: Int = 32) {
        self.maxIdlePerOrigin = maxIdlePerOrigin
    }

    /// How many connections this pool has opened since it was made.
    package var connectionsOpened: Int { opened.withLock { $0 } }

    /// An idle connection to `origin`, if one is kept.
    package func takeIdle(for origin: PageURL.Origin) -> AsyncSocket? {
        idle.withLock { $0[origin]?.popLast() }
    }

    /// Opens a new connection to `origin`.
    package func connect(to origin: PageURL.Origin, deadline: DispatchTime) async throws(SocketError) -> AsyncSocket {
        let address = try SocketAddress.resolve(host: origin.host, port: origin.port)
        let socket = try await AsyncSocket.connect(to: address, deadline: deadline)
        opened.withLock { $0 += 1 }
        return socket
    }

    /// Keeps a connection whose last response left it reusable.
    package func giveBack(_ socket: AsyncSocket, for origin: PageURL.Origin) {
        let kept = idle.withLock { idle -> Bool in
            guard idle[origin, default: []].count < maxIdlePerOrigin else { return false }
            idle[origin, default: []].append(socket)
            return true
        }
        if !kept { socket.close() }
    }

    /// Closes every idle connection.
    package func closeAll() {
        let all = idle.withLock { idle -> [AsyncSocket] in
            defer { idle = [:] }
            return idle.values.flatMap { $0 }
        }
        all.forEach { $0.close() }
    }
}

import Synchronization

/// Idle keep-alive connections to upstreams, a bounded stack per origin and trust.
///
/// The most recently used connection is handed out first (it is the least likely to have been closed by the
/// upstream's idle timeout); past `maxIdlePerOrigin` a returned connection is closed instead of kept. An `https`
/// connection is kept under the CA file that verified it, so a route that trusts less never reuses it.
package final class ConnectionPool: Sendable {
    /// Where a connection goes, and what its certificate was verified against (`nil`: the system trust store).
    package struct Key: Hashable, Sendable {
        package var origin: PageURL.Origin
        package var caFile: String?

        package init(origin: PageURL.Origin, caFile: String? = nil) {
            self.origin = origin
            self.caFile = origin.scheme == "https" ? caFile : nil
        }
    }

    /// Why a new connection could not be opened.
    package enum ConnectError: Error {
        case socket(SocketError)
        case tls(TLSError)
    }

    private let idle = Mutex<[Key: [any UpstreamConnection]]>([:])
    private let opened = Mutex(0)
    /// TLS client contexts by CA file, made on first use: loading a trust store is costly, sharing it is not.
    private let contexts = Mutex<[String?: TLSContext]>([:])
    package let maxIdlePerOrigin: Int

    package init(maxIdlePerOrigin: Int = 32) {
        self.maxIdlePerOrigin = maxIdlePerOrigin
    }

    deinit {
        closeAll()
    }

    /// How many connections this pool has opened since it was made.
    package var connectionsOpened: Int { opened.withLock { $0 } }

    /// An idle connection for `key`, if one is kept that is still quiet: one the upstream closed, or wrote to while it
    /// was idle (bytes no request asked for, which the next request would take as its answer: attack13 H3), is closed.
    package func takeIdle(for key: Key) -> (any UpstreamConnection)? {
        while let connection = idle.withLock({ $0[key]?.popLast() }) {
            if connection.isQuiet() { return connection }
            connection.close()
        }
        return nil
    }

    /// Opens a new connection for `key`: TCP, then for `https` a TLS handshake that verifies the host.
    package func connect(
        to key: Key, deadline: ContinuousClock.Instant
    ) async throws(ConnectError) -> any UpstreamConnection {
        let socket: AsyncSocket
        do {
            // Name resolution blocks: off the cooperative pool, and bounded by the fetch's deadline.
            let address = try await AddressResolver.resolve(host: key.origin.host, port: key.origin.port, deadline: deadline)
            socket = try await AsyncSocket.connect(to: address, deadline: deadline)
        } catch {
            throw .socket(error)
        }
        opened.withLock { $0 += 1 }
        guard key.origin.scheme == "https" else { return socket }
        do {
            let context = try tlsContext(caFile: key.caFile).get()
            return try await TLSStream.connect(socket, context: context, host: key.origin.host, deadline: deadline)
        } catch {
            socket.close()
            switch error {
            case .tls(let error): throw .tls(error)
            case .socket(let error): throw .socket(error)
            }
        }
    }

    /// The client context for `caFile` (made now, or kept from before).
    package func tlsContext(caFile: String?) -> Result<TLSContext, TLSStreamError> {
        if let context = contexts.withLock({ $0[caFile] }) { return .success(context) }
        switch TLSContext.client(caFile: caFile) {
        case .success(let context):
            return .success(contexts.withLock { contexts in
                if let existing = contexts[caFile] { return existing }
                contexts[caFile] = context
                return context
            })
        case .failure(let error):
            return .failure(.tls(error))
        }
    }

    /// Keeps a connection whose last response left it reusable.
    package func giveBack(_ connection: any UpstreamConnection, for key: Key) {
        let kept = idle.withLock { idle -> Bool in
            guard idle[key, default: []].count < maxIdlePerOrigin else { return false }
            idle[key, default: []].append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    /// Closes every idle connection.
    package func closeAll() {
        let all = idle.withLock { idle -> [any UpstreamConnection] in
            defer { idle = [:] }
            return idle.values.flatMap { $0 }
        }
        all.forEach { $0.close() }
    }
}

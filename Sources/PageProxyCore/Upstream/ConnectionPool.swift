import Synchronization

/// Idle keep-alive connections to upstreams, a bounded stack per origin and trust.
///
/// The most recently used connection is handed out first (it is the least likely to have been closed by the
/// upstream's idle timeout); past `maxIdlePerOrigin` a returned connection is closed instead of kept. An `https`
/// connection is kept under the CA file that verified it, so a route that trusts less never reuses it. While any is
/// kept, every `sweepInterval` those the upstream closed (or wrote to) are closed: an upstream's idle timeout or restart
/// otherwise left up to `maxIdlePerOrigin` sockets per origin in CLOSE-WAIT until the next request there (attack15 U1).
///
/// An origin caught sending bytes no request asked for (`noteUnsolicited`) gets no connection kept or reused again in
/// the process's life (attack17 L2): such a habit is in the upstream's code, and the only way to learn it is gone is
/// to reuse a connection, the very thing that lets a stray response be read as the next page (and cached for its TTL).
/// A new connection per request (a handshake more) is the price; a restart forgets.
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

    private struct Idle {
        var connections: [Key: [any UpstreamConnection]] = [:]
        /// A sweep is due (`sweepLater`): set while any connection is kept.
        var sweeping = false
        /// Origins caught sending bytes no request asked for: none of their connections is kept.
        var unsolicited: Set<PageURL.Origin> = []
        /// The watch of each origin whose connection was reused (`strayWatch`).
        var watches: [PageURL.Origin: OriginStrayWatch] = [:]
    }

    /// Where bytes no request asked for were found (`onUnsolicited`).
    package enum UnsolicitedBytes: String, Sendable {
        /// On a kept connection with no request outstanding (at its check-out or a sweep).
        case whileIdle = "while_idle"
        /// After a whole response, in its last read or arrived by the time it was read.
        case afterAResponse = "after_a_response"
    }

    private let idle = Mutex(Idle())
    private let opened = Mutex(0)
    /// TLS client contexts by CA file, made on first use: loading a trust store is costly, sharing it is not.
    private let contexts = Mutex<[String?: TLSContext]>([:])
    package let maxIdlePerOrigin: Int
    package let sweepInterval: Duration
    /// Told once per origin, the first time it is caught sending bytes no request asked for.
    private let onUnsolicited: @Sendable (PageURL.Origin, UnsolicitedBytes) -> Void

    package init(
        maxIdlePerOrigin: Int = 32, sweepInterval: Duration = .seconds(5),
        onUnsolicited: @escaping @Sendable (PageURL.Origin, UnsolicitedBytes) -> Void = { _, _ in }
    ) {
        self.maxIdlePerOrigin = maxIdlePerOrigin
        self.sweepInterval = sweepInterval
        self.onUnsolicited = onUnsolicited
    }

    deinit {
        closeAll()
    }

    /// How many connections this pool has opened since it was made.
    package var connectionsOpened: Int { opened.withLock { $0 } }

    /// An idle connection for `key`, if one is kept that is still quiet: one the upstream closed, or wrote to while it
    /// was idle (bytes no request asked for, which the next request would take as its answer: attack13 H3), is closed.
    /// Bytes waiting there are `noteUnsolicited`.
    package func takeIdle(for key: Key) -> (any UpstreamConnection)? {
        while let connection = idle.withLock({ $0.connections[key]?.popLast() }) {
            let state = connection.idleState()
            if state == .quiet { return connection }
            connection.close()
            if state == .unsolicited { noteUnsolicited(from: key.origin, .whileIdle) }
        }
        return nil
    }

    /// Whether connections to `origin` are kept and reused: not once it has sent bytes no request asked for.
    package func reuses(_ origin: PageURL.Origin) -> Bool {
        idle.withLock { !$0.unsolicited.contains(origin) }
    }

    /// How many origins' connections are not reused (`noteUnsolicited`): an operator's sign of it beyond one warning.
    package var originsNotReused: Int { idle.withLock { $0.unsolicited.count } }

    /// Notes that `origin` sent bytes no request asked for: its kept connections are closed, none is kept from now on,
    /// and `onUnsolicited` is told the first time.
    package func noteUnsolicited(from origin: PageURL.Origin, _ seen: UnsolicitedBytes) {
        let (isFirst, dropped) = idle.withLock { idle -> (Bool, [any UpstreamConnection]) in
            guard idle.unsolicited.insert(origin).inserted else { return (false, []) }
            idle.watches[origin]?.noteCaught()
            let keys = idle.connections.keys.filter { $0.origin == origin }
            return (true, keys.flatMap { idle.connections.removeValue(forKey: $0) ?? [] })
        }
        dropped.forEach { $0.close() }
        if isFirst { onUnsolicited(origin, seen) }
    }

    /// The watch a response read over a reused connection to `origin` carries: caught once `noteUnsolicited` is.
    package func strayWatch(for origin: PageURL.Origin) -> OriginStrayWatch {
        idle.withLock { idle in
            if let watch = idle.watches[origin] { return watch }
            let watch = OriginStrayWatch(caught: idle.unsolicited.contains(origin))
            idle.watches[origin] = watch
            return watch
        }
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

    /// Keeps a connection whose last response left it reusable, unless it is no longer quiet (bytes that arrived
    /// after the response are `noteUnsolicited`) or its origin is not reused; returns what it found there.
    @discardableResult
    package func giveBack(_ connection: any UpstreamConnection, for key: Key) -> UpstreamIdleState {
        let state = connection.idleState()
        guard state == .quiet else {
            connection.close()
            if state == .unsolicited { noteUnsolicited(from: key.origin, .afterAResponse) }
            return state
        }
        let (kept, startsSweeping) = idle.withLock { idle -> (Bool, Bool) in
            guard !idle.unsolicited.contains(key.origin), idle.connections[key, default: []].count < maxIdlePerOrigin else { return (false, false) }
            idle.connections[key, default: []].append(connection)
            defer { idle.sweeping = true }
            return (true, !idle.sweeping)
        }
        if !kept { connection.close() }
        if startsSweeping { sweepLater() }
        return state
    }

    /// How many idle connections are kept for `key`.
    package func idleCount(for key: Key) -> Int { idle.withLock { $0.connections[key]?.count ?? 0 } }

    /// Sweeps every `sweepInterval` while any connection is kept; the task holds the pool weakly, and ends with it.
    private func sweepLater() {
        Task { [weak self, sweepInterval] in
            while true {
                try? await Task.sleep(for: sweepInterval)
                guard let self, self.sweep() else { return }
            }
        }
    }

    /// Closes the idle connections that are no longer quiet (the upstream closed them, or wrote to them); returns
    /// whether any are still kept (if not, sweeping stops until one is given back). Each is looked at under the lock
    /// (a non-blocking peek): one taken meanwhile is never closed under its request.
    func sweep() -> Bool {
        let (gone, unsolicited, goesOn) = idle.withLock { idle -> ([any UpstreamConnection], Set<PageURL.Origin>, Bool) in
            var gone: [any UpstreamConnection] = []
            var unsolicited: Set<PageURL.Origin> = []
            for (key, connections) in idle.connections {
                let quiet = connections.filter { connection in
                    let state = connection.idleState()
                    if state == .quiet { return true }
                    if state == .unsolicited { unsolicited.insert(key.origin) }
                    gone.append(connection)
                    return false
                }
                idle.connections[key] = quiet.isEmpty ? nil : quiet
            }
            idle.sweeping = !idle.connections.isEmpty
            return (gone, unsolicited, idle.sweeping)
        }
        gone.forEach { $0.close() }
        unsolicited.forEach { noteUnsolicited(from: $0, .whileIdle) }
        return goesOn
    }

    /// Closes every idle connection.
    package func closeAll() {
        let all = idle.withLock { idle -> [any UpstreamConnection] in
            defer { idle.connections = [:] }
            return idle.connections.values.flatMap { $0 }
        }
        all.forEach { $0.close() }
    }
}

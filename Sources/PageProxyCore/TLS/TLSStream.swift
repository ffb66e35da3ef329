#if canImport(Glibc)
import Glibc
#endif

/// A TLS connection over one of PageProxy's non-blocking sockets: OpenSSL does the record layer on the
/// descriptor, and the socket's readiness waits whenever OpenSSL wants to read or write.
///
/// Like `AsyncSocket`, one task uses a stream at a time, and `close()` may come from anywhere. OpenSSL touches the
/// descriptor only inside `AsyncSocket.withOpenDescriptor`, so never after the socket has been closed.
// @unchecked: `ssl` is used by one task at a time (the pool hands a connection to one request), OpenSSL allows an
// SSL object to move between threads between calls, and each call reads its error code at once on its own
// thread; `deinit` frees it when no task can hold the stream any more.
package final class TLSStream: @unchecked Sendable {
    package let socket: AsyncSocket
    private let context: TLSContext
    private let ssl: OpaquePointer

    private init(socket: AsyncSocket, context: TLSContext, ssl: OpaquePointer) {
        self.socket = socket
        self.context = context
        self.ssl = ssl
    }

    deinit {
        context.library.sslFree(ssl)
    }

    /// Performs a client handshake on `socket`, verifying that the certificate is valid for `host`.
    package static func connect(
        _ socket: AsyncSocket, context: TLSContext, host: String, deadline: ContinuousClock.Instant?
    ) async throws(TLSStreamError) -> TLSStream {
        let stream = try make(socket, context: context)
        let library = context.library
        let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
        let named = host.withCString { name -> Bool in
            if isAddress {
                return library.verifyParamSet1IPASC(library.sslGet0Param(stream.ssl), name) == 1
            }
            // SNI, then the name the certificate must carry.
            _ = library.sslControl(stream.ssl, OpenSSL.controlSetHostName, 0, UnsafeMutableRawPointer(mutating: name))
            return library.sslSet1Host(stream.ssl, name) == 1
        }
        guard named else { throw .tls(.configuration("OpenSSL refused the host name \(host)")) }
        try await stream.handshake(deadline: deadline) { library.sslConnect($0) }
        return stream
    }

    /// Performs a server handshake on an accepted `socket` (tests serve TLS with it).
    package static func accept(_ socket: AsyncSocket, context: TLSContext, deadline: ContinuousClock.Instant?) async throws(TLSStreamError) -> TLSStream {
        let stream = try make(socket, context: context)
        try await stream.handshake(deadline: deadline) { context.library.sslAccept($0) }
        return stream
    }

    private static func make(_ socket: AsyncSocket, context: TLSContext) throws(TLSStreamError) -> TLSStream {
        let library = context.library
        guard let ssl = library.sslNew(context.context) else {
            throw .tls(.configuration("SSL_new failed: \(library.lastErrorText())"))
        }
        let stream = TLSStream(socket: socket, context: context, ssl: ssl)
        guard library.sslSetFD(ssl, socket.socket.fd) == 1 else {
            throw .tls(.configuration("SSL_set_fd failed: \(library.lastErrorText())"))
        }
        return stream
    }

    private func handshake(
        deadline: ContinuousClock.Instant?, _ step: (OpaquePointer) -> Int32
    ) async throws(TLSStreamError) {
        let library = context.library
        while true {
            let outcome: Int32?
            do {
                outcome = try await settle(attempt(step), deadline: deadline)
            } catch {
                switch error {
                case .socket(let error): throw .socket(error)
                case .endOfStream: throw .tls(.handshakeFailed("the server closed the connection during the handshake"))
                case .failed(let code, let detail):
                    let verification = library.sslGetVerifyResult(ssl)
                    if verification != 0 {
                        let reason = library.verifyErrorString(verification).map { String(cString: $0) } ?? "error \(verification)"
                        throw .tls(.certificateNotVerified(reason))
                    }
                    throw .tls(.handshakeFailed(detail ?? "OpenSSL error \(code)"))
                }
            }
            if outcome != nil { return }
        }
    }

    /// Appends what arrives next (up to `maxBytes`) to `buffer`; returns the count, 0 at the end of the stream.
    package func read(into buffer: inout [UInt8], maxBytes: Int = 16384, deadline: ContinuousClock.Instant?) async throws(SocketError) -> Int {
        let library = context.library
        while true {
            let attempt = buffer.append(readingUpTo: maxBytes) { scratch in
                let attempt = self.attempt { library.sslRead($0, scratch.baseAddress, Int32(clamping: scratch.count)) }
                return (attempt, attempt.map { max(0, Int($0.result)) } ?? 0)
            }
            do {
                if let count = try await settle(attempt, deadline: deadline) { return Int(count) }
            } catch .endOfStream {
                return 0
            } catch {
                throw error.socketError
            }
        }
    }

    /// What waits, decrypted, with no request outstanding: copied into `scratch` and left to be read (`SSL_peek` on the
    /// non-blocking socket; it never waits). OpenSSL handles the records that carry no data itself (a session ticket,
    /// a key update), so what it returns is the peer's data.
    package func peekWaiting(into scratch: UnsafeMutableRawBufferPointer) -> TLSWaiting {
        let library = context.library
        guard let attempt = attempt({ library.sslPeek($0, scratch.baseAddress, Int32(clamping: scratch.count)) }) else { return .closed }
        if attempt.result > 0 { return .data(Int(attempt.result)) }
        // Nothing to read, and no record half-arrived (OpenSSL holds its first bytes: `SSL_has_pending`).
        guard attempt.error == OpenSSL.errorWantRead else { return .closed }
        return library.sslHasPending(ssl) == 1 ? .arriving : .nothing
    }

    /// Writes every byte, waiting while the peer's window is full.
    package func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        let library = context.library
        var offset = 0
        while offset < bytes.count {
            let attempt = bytes.withUnsafeBytes { raw in
                let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
                return self.attempt { library.sslWrite($0, rest.baseAddress, Int32(clamping: rest.count)) }
            }
            do {
                if let written = try await settle(attempt, deadline: deadline) { offset += Int(written) }
            } catch {
                throw error.socketError
            }
        }
    }

    /// One OpenSSL call and, when it did not succeed, its error code: read on the calling thread, at once.
    private struct Attempt {
        var result: Int32
        var error: Int32 = 0
        var errno: Int32 = 0
        var detail: String? = nil
    }

    /// Makes one call, unless the socket is closed (`nil`).
    private func attempt(_ call: (OpaquePointer) -> Int32) -> Attempt? {
        let library = context.library
        let ssl = self.ssl
        return socket.withOpenDescriptor { _ -> Attempt in
            errno = 0
            let result = withoutSIGPIPE { call(ssl) }
            guard result <= 0 else { return Attempt(result: result) }
            let error = library.sslGetError(ssl, result)
            let wants = error == OpenSSL.errorWantRead || error == OpenSSL.errorWantWrite
            return Attempt(result: result, error: error, errno: errno, detail: wants ? nil : library.lastErrorText())
        }
    }

    /// The call's positive result, or nil after waiting for the socket as OpenSSL asked (call again then).
    private func settle(_ attempt: Attempt?, deadline: ContinuousClock.Instant?) async throws(TLSIOError) -> Int32? {
        guard let attempt else { throw .socket(.cancelled) }
        if attempt.result > 0 { return attempt.result }
        do {
            switch attempt.error {
            case OpenSSL.errorWantRead:
                try await socket.waitUntilReadable(deadline: deadline)
                return nil
            case OpenSSL.errorWantWrite:
                try await socket.waitUntilWritable(deadline: deadline)
                return nil
            case OpenSSL.errorZeroReturn:
                throw TLSIOError.endOfStream
            case OpenSSL.errorSyscall where attempt.errno == 0:
                throw TLSIOError.endOfStream
            default:
                throw TLSIOError.failed(code: attempt.error, detail: attempt.detail)
            }
        } catch let error as SocketError {
            throw .socket(error)
        } catch let error as TLSIOError {
            throw error
        } catch {
            throw .socket(.cancelled)
        }
    }

    /// Closes the connection (a best-effort close_notify first); a task waiting on it wakes with `.cancelled`.
    package func close() {
        let library = context.library
        let ssl = self.ssl
        // The close_notify is a write too: to a peer gone, it raises SIGPIPE (at once on a Unix socket pair).
        _ = socket.withOpenDescriptor { _ in withoutSIGPIPE { library.sslShutdown(ssl) } }
        socket.close()
    }
}

/// Runs `call` with SIGPIPE blocked on this thread and discards a SIGPIPE it raised: OpenSSL writes with
/// write(2), and a peer that has gone would otherwise end the process (Linux has no SO_NOSIGPIPE; PageProxy's
/// own sockets use MSG_NOSIGNAL). The library must not depend on its host program ignoring SIGPIPE.
private func withoutSIGPIPE<T>(_ call: () -> T) -> T {
    var pipe = sigset_t()
    sigemptyset(&pipe)
    sigaddset(&pipe, SIGPIPE)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &pipe, &previous)
    let result = call()
    var pending = sigset_t()
    sigpending(&pending)
    if sigismember(&pending, SIGPIPE) == 1 && sigismember(&previous, SIGPIPE) == 0 {
        var now = timespec(tv_sec: 0, tv_nsec: 0)
        _ = sigtimedwait(&pipe, nil, &now)
    }
    pthread_sigmask(SIG_SETMASK, &previous, nil)
    return result
}

/// What `TLSStream.peekWaiting` found.
package enum TLSWaiting: Equatable, Sendable {
    /// Nothing waits.
    case nothing
    /// A record has begun to arrive, not yet whole.
    case arriving
    /// This many decrypted bytes wait (copied into the scratch buffer).
    case data(Int)
    /// The peer closed (a close_notify, the end of the stream), or the connection failed.
    case closed
}

/// Why a TLS stream could not be opened: TLS itself, or the socket under it.
package enum TLSStreamError: Error, Equatable {
    case tls(TLSError)
    case socket(SocketError)
}

/// How one OpenSSL call ended, when it did not succeed.
enum TLSIOError: Error {
    case endOfStream
    case failed(code: Int32, detail: String?)
    case socket(SocketError)

    var socketError: SocketError {
        switch self {
        case .socket(let error): error
        case .endOfStream: .cancelled
        case .failed(let code, let detail): .failed(call: "TLS record layer (\(detail ?? "OpenSSL error \(code)"))", errno: EPROTO)
        }
    }
}

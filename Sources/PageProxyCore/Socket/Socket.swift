#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking socket file descriptor and the system calls PageProxy makes on it.
///
/// Every call retries `EINTR` and reports `EAGAIN` as a value (`nil`), never as an error, so the caller can
/// wait for readiness and try again (NIO's `syscall` wrapper does the same).
package struct Socket: Sendable, Hashable {
    package let fd: Int32

    package init(fd: Int32) {
        self.fd = fd
    }

    /// Creates a non-blocking listening socket bound to `address`.
    package static func makeListening(on address: SocketAddress, backlog: Int32 = 1024) throws(SocketError) -> Socket {
        let fd = Glibc.socket(address.domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .makeFailed("socket") }
        let socket = Socket(fd: fd)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockAddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let error = SocketError.makeFailed("bind \(address)")
            socket.close()
            throw error
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = SocketError.makeFailed("listen")
            socket.close()
            throw error
        }
        return socket
    }

    /// Starts a non-blocking connect; returns the socket and whether the connection is already complete.
    /// - Parameter receiveBufferBytes: `SO_RCVBUF`, set before connecting so that the TCP window is negotiated
    ///   with it (a slow reader's small window); nil keeps the kernel's own tuning.
    package static func makeConnecting(
        to address: SocketAddress, receiveBufferBytes: Int? = nil
    ) throws(SocketError) -> (Socket, isConnected: Bool) {
        let fd = Glibc.socket(address.domain, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .makeFailed("socket") }
        let socket = Socket(fd: fd)
        // Past the line the process is as good as out of descriptors (`DescriptorReserve`): say so, as EMFILE would.
        guard DescriptorReserve.admits(fd) else {
            socket.close()
            throw .failed(call: "socket", errno: EMFILE)
        }
        socket.setNoDelay()
        if let receiveBufferBytes { socket.setBufferSize(SO_RCVBUF, receiveBufferBytes) }
        while true {
            let result = address.withSockAddr { Glibc.connect(fd, $0, $1) }
            if result == 0 { return (socket, true) }
            switch errno {
            case EINTR: continue
            case EINPROGRESS: return (socket, false)
            default:
                let error = SocketError.failed(call: "connect \(address)", errno: errno)
                socket.close()
                throw error
            }
        }
    }

    /// The result of a finished non-blocking connect (`SO_ERROR`).
    package func connectResult() -> SocketError? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return .makeFailed("getsockopt") }
        return code == 0 ? nil : .failed(call: "connect", errno: code)
    }

    /// Accepts one pending connection as a non-blocking socket; `nil` when none is pending.
    package func accept() throws(SocketError) -> Socket? {
        while true {
            // accept4 is not exported by Glibc's Swift module: set the flags with fcntl instead.
            let client = Glibc.accept(fd, nil, nil)
            if client >= 0 {
                let socket = Socket(fd: client)
                _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                socket.setNoDelay()
                return socket
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw .makeFailed("accept")
            }
        }
    }

    /// Reads up to `buffer.count` bytes; `nil` when nothing is available yet, 0 at end of stream.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SocketError) -> Int? {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw .makeFailed("read")
            }
        }
    }

    /// Writes as many bytes as the kernel takes now; `nil` when it takes none.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(SocketError) -> Int? {
        while true {
            let count = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw .makeFailed("send")
            }
        }
    }

    /// Writes as many bytes of `parts`, in order, as the kernel takes now, in one `sendmsg` (a gathering write: a
    /// head and a body leave together without being copied into one buffer); `nil` when it takes none.
    package func write(gathering parts: some Collection<UnsafeRawBufferPointer>) throws(SocketError) -> Int? {
        // The vectors on the stack, not in an array a write (issue 13: allocations a memoized answer).
        let result = withUnsafeTemporaryAllocation(of: iovec.self, capacity: parts.count) { vectors -> Result<Int?, SocketError> in
            for (index, part) in zip(vectors.indices, parts) {
                vectors.initializeElement(at: index, to: iovec(iov_base: UnsafeMutableRawPointer(mutating: part.baseAddress), iov_len: part.count))
            }
            var message = msghdr()
            message.msg_iov = vectors.baseAddress
            message.msg_iovlen = vectors.count
            while true {
                let count = sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
                if count >= 0 { return .success(count) }
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return .success(nil)
                default: return .failure(.makeFailed("sendmsg"))
                }
            }
        }
        return try result.get()
    }

    /// Whether the peer has closed or reset the connection, looking without consuming: true at end of stream or on an
    /// error, false when data is waiting, nil when nothing has arrived yet.
    package func isPeerClosed() -> Bool? {
        var byte: UInt8 = 0
        while true {
            let count = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
            if count > 0 { return false }
            if count == 0 { return true }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: return true
            }
        }
    }

    /// Copies up to `buffer.count` of the bytes waiting on the socket into `buffer` without reading them (`MSG_PEEK`):
    /// their count, 0 once the peer has closed or reset the connection, nil when nothing is waiting.
    package func peek(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: return 0
            }
        }
    }

    /// The port the socket is bound to (useful after binding port 0).
    package func localPort() -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer -> Int in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// Stops both directions (the peer sees the end at once, even while another process holds a copy of the
    /// descriptor), without releasing it.
    package func shutdown() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Releases the descriptor.
    package func close() {
        _ = Glibc.close(fd)
    }

    /// Sets `SO_SNDBUF`: the kernel then queues about this many unsent bytes at most (Linux doubles the value for
    /// its bookkeeping) and stops growing the buffer on its own, so a client that does not read blocks the writer.
    package func setSendBufferSize(_ bytes: Int) {
        setBufferSize(SO_SNDBUF, bytes)
    }

    /// The kernel's `SO_SNDBUF` (already doubled by Linux), or `SO_RCVBUF` with `receive: true`.
    package func bufferSize(receive: Bool = false) -> Int? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, receive ? SO_RCVBUF : SO_SNDBUF, &value, &length) == 0 else { return nil }
        return Int(value)
    }

    private func setBufferSize(_ option: Int32, _ bytes: Int) {
        var value = Int32(clamping: bytes)
        setsockopt(fd, SOL_SOCKET, option, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Asks Linux to acknowledge what arrives at once instead of delaying the ACK (`TCP_QUICKACK`). The kernel
    /// leaves quick-ACK mode again on its own (after a few segments, or when the connection looks interactive), so
    /// a client re-arms it around every exchange: see `HTTP1Transport`.
    package func setQuickAck() {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), Int32(TCP_QUICKACK), &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Whether the socket is in quick-ACK mode now (`getsockopt(TCP_QUICKACK)`); nil if it cannot be read.
    package func isQuickAck() -> Bool? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, Int32(IPPROTO_TCP), Int32(TCP_QUICKACK), &value, &length) == 0 else { return nil }
        return value != 0
    }

    private func setNoDelay() {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }
}

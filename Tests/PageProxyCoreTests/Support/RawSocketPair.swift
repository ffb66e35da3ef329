#if canImport(Glibc)
import Glibc
#endif

/// A connected pair of non-blocking Unix stream sockets: the end a test watches, and the peer it writes from.
func makeNonBlockingSocketPair() -> (watched: Int32, peer: Int32) {
    var fds: [Int32] = [0, 0]
    let result = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds)
    precondition(result == 0, "socketpair failed")
    for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    return (fds[0], fds[1])
}

/// A connected pair of non-blocking TCP sockets on 127.0.0.1 (for what a Unix pair does not have: `TCP_CORK`, resets).
func makeNonBlockingLoopbackPair() -> (watched: Int32, peer: Int32) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    precondition(listener >= 0, "socket failed")
    defer { _ = close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0 }
    }
    precondition(bound, "bind or listen failed")
    let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    precondition(client >= 0, "socket failed")
    let connected = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
    precondition(connected, "connect failed")
    let server = accept(listener, nil, nil)
    precondition(server >= 0, "accept failed")
    _ = fcntl(server, F_SETFD, FD_CLOEXEC)
    for fd in [client, server] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    return (client, server)
}

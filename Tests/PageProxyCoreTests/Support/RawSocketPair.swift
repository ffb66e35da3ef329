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

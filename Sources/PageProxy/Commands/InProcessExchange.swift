import PageProxyCore
import PageProxyServer
#if canImport(Glibc)
import Glibc
#endif

/// One request answered by the proxy's own responder over a socket pair, with no listener: `PageProxy fetch` walks
/// a route through exactly the code a served request takes (controls, walk, cache, memo, errors), and reads the
/// answer from the other end as a client would, so its memory stays bounded as the server's does.
///
/// The request is HTTP/1.0, so that a streamed answer is delimited by the end of the connection (no chunk framing
/// to undo) and a merged one carries `Content-Length`.
struct InProcessExchange {
    /// The client's end of the pair: the answer arrives here.
    let answer: AsyncSocket
    /// Ends when the responder has written its answer and closed its end.
    let responding: Task<Void, Never>

    struct PairFailed: Error, CustomStringConvertible {
        let errno: Int32
        var description: String { "socketpair failed: \(String(cString: strerror(errno)))" }
    }

    static func start(_ request: HTTPRequestHead, responder: PageProxyResponder) throws(PairFailed) -> InProcessExchange {
        var fds: [Int32] = [-1, -1]
        let kind = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, kind, 0, &fds) == 0 else { throw PairFailed(errno: errno) }
        let server = AsyncSocket(socket: Socket(fd: fds[0]))
        let client = AsyncSocket(socket: Socket(fd: fds[1]))
        let responding = Task {
            // A reader that is slow (a pipe to a slow consumer) makes the walk wait, as a slow client does: a long time.
            let writer = ResponseWriter(sink: server, request: request, keepsAlive: false, writeTimeout: .seconds(86_400))
            _ = await responder.respond(to: request, response: Response(writer: writer))
            server.close()
        }
        return InProcessExchange(answer: client, responding: responding)
    }
}

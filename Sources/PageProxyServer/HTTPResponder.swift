import PageProxyCore

/// Answers one parsed request through its single-use `Response`, and returns what the answer's log line and
/// metrics need to know (`RequestRecord`).
///
/// The server calls `respond` one request at a time per connection, so pipelined requests are answered in order.
package protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequestHead, response: consuming Response) async -> RequestRecord

    /// Told of every answer `respond` gave, once it is written: what the client received and how long it took.
    func answered(_ record: RequestRecord, status: Int, bytes: Int, duration: Duration)

    /// Told of an answer the server gave by itself, without `respond`: a request it could not parse (400, 408,
    /// 413, 414, 431, 501, 505) or a client past the connection cap (503). Metrics count them too.
    func refused(status: HTTPStatus, bytes: Int)

    /// Whether each connection's task runs on the socket loop's thread (`EpollLoop` as its task executor): a
    /// request that is answered from memory then costs no hop to the cooperative pool and back (issue 13). A
    /// responder that says yes must not block nor run long in `respond`: it moves such work (a walk, a fetch, disk
    /// I/O) to the pool with `withTaskExecutorPreference(globalConcurrentExecutor)`. False by default.
    var answersOnSocketLoop: Bool { get }
}

extension HTTPResponder {
    package func answered(_ record: RequestRecord, status: Int, bytes: Int, duration: Duration) {}
    package func refused(status: HTTPStatus, bytes: Int) {}
    package var answersOnSocketLoop: Bool { false }
}

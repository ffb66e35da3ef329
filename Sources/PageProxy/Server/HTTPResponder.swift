import PageProxyCore

/// Answers one parsed request by writing exactly one response (or aborting it) through `writer`.
///
/// The server calls `respond` one request at a time per connection, so pipelined requests are answered in order.
protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequestHead, writer: ResponseWriter) async

    /// Told of an answer the server gave by itself, without `respond`: a request it could not parse (400, 408,
    /// 413, 414, 431, 501, 505) or a client past the connection cap (503). Metrics count them too.
    func refused(status: HTTPStatus, bytes: Int)
}

extension HTTPResponder {
    func refused(status: HTTPStatus, bytes: Int) {}
}

import PageProxyCore

/// Answers one parsed request by writing exactly one response (or aborting it) through `writer`.
///
/// The server calls `respond` one request at a time per connection, so pipelined requests are answered in order.
protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequestHead, writer: ResponseWriter) async
}

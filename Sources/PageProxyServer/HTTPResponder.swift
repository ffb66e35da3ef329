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

    /// Whether the server asks `respondFromMemory` first, on the socket loop's thread (issue 13). False by default.
    var answersOnSocketLoop: Bool { get }

    /// Answers `request` at once if it can from memory (an answer, or a short walk of pages, held in memory: no fetch,
    /// no disk, no wait), taking `response`; otherwise leaves `response` as it is and returns nil, having sent and
    /// counted nothing, and the server calls `respond`.
    ///
    /// Where `answersOnSocketLoop` is true, a connection reads, parses and calls this on the socket loop's thread
    /// (`EpollLoop` as its task's executor while it does): a request answered from memory then costs no hop to the
    /// cooperative pool and back. It must not block nor run long: every socket waits while it runs. `respond`
    /// always runs on the pool. Nil by default.
    func respondFromMemory(to request: HTTPRequestHead, response: inout Response?) async -> RequestRecord?

    /// `respondFromMemory` with no task: called on the socket loop's thread the moment a request has arrived whole on a
    /// connection waiting between requests, before any task runs (issue 13: a memo hit costs one read and one write, as
    /// nginx's does). It answers with the bytes `respondFromMemory` would send, through `Response.sendNow` on the
    /// response `response()` makes (at most once: the connection is busy from then on; what the client cannot take at
    /// once is written by the connection's task after), or declines, having made none, with nothing sent or counted:
    /// `.notInMemory` when `respondFromMemory` would decline too (the server then calls `respond`), `.later` when
    /// `respondFromMemory` should be asked. Only where `answersOnSocketLoop`; `.later` by default.
    func respondFromMemoryNow(to request: HTTPRequestHead, response: () -> Response) -> MemoryAnswerNow

    /// On the pool: `respondFromMemory`, and `respond` when it declines, in one call, so that a responder can look the
    /// request up once for both (issue 13). The record, and whether the answer was one `respondFromMemory` gives (the
    /// connection then goes back to the socket loop); nil when `respondFromMemory` took the response without answering.
    func respondPreferringMemory(to request: HTTPRequestHead, response: consuming Response) async -> (record: RequestRecord, fromMemory: Bool)?
}

extension HTTPResponder {
    package func answered(_ record: RequestRecord, status: Int, bytes: Int, duration: Duration) {}
    package func refused(status: HTTPStatus, bytes: Int) {}
    package var answersOnSocketLoop: Bool { false }
    package func respondFromMemory(to request: HTTPRequestHead, response: inout Response?) async -> RequestRecord? { nil }
    package func respondFromMemoryNow(to request: HTTPRequestHead, response: () -> Response) -> MemoryAnswerNow { .later }

    package func respondPreferringMemory(
        to request: HTTPRequestHead, response: consuming Response
    ) async -> (record: RequestRecord, fromMemory: Bool)? {
        await respondFromMemoryThenRespond(to: request, response: response)
    }

    /// `respondFromMemory`, and `respond` when it declines: `respondPreferringMemory`'s way when a responder has no
    /// shorter one.
    package func respondFromMemoryThenRespond(
        to request: HTTPRequestHead, response: consuming Response
    ) async -> (record: RequestRecord, fromMemory: Bool)? {
        var pending: Response? = consume response
        if let record = await respondFromMemory(to: request, response: &pending) { return (record, true) }
        guard let response = pending.take() else { return nil }
        return (await respond(to: request, response: response), false)
    }
}

/// What `HTTPResponder.respondFromMemoryNow` did.
package enum MemoryAnswerNow: Sendable {
    /// Answered, on the response it made.
    case answered(RequestRecord)
    /// No response made, nothing sent or counted: `respondFromMemory` would not answer it either.
    case notInMemory
    /// No response made, nothing sent or counted: `respondFromMemory` may answer it (with a task).
    case later
}

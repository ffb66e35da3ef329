import Foundation
import PageProxyCore

/// Writes one response to a `ResponseSink`: a whole body with `Content-Length`, or a stream of chunks.
///
/// Responders reach it only through a `Response` (single use: its sends are `consuming`); the connection keeps the
/// writer to learn how the answer ended. It owns the framing rules: no body bytes for `HEAD`, chunked streams for HTTP/1.1 and close-delimited streams
/// for HTTP/1.0, `Connection: close` whenever the connection will not be reused, and an aborted stream that ends
/// without its last chunk so that the client sees an incomplete transfer.
package final class ResponseWriter {
    package enum State {
        case idle
        case streaming(chunked: Bool)
        case finished
        case aborted
    }

    private let sink: any ResponseSink
    private let isHead: Bool
    private let version: HTTPVersion
    private let writeTimeout: Duration
    /// Asked when the head is written: a server that began draining meanwhile closes the connection after this.
    private let isDraining: () -> Bool
    /// Whether the server's shutdown has closed every connection (its grace period ended).
    private let isCut: () -> Bool
    private(set) var state = State.idle
    /// Whether the connection stays open after this response; the writer may turn it off, never on.
    private(set) var keepsAlive: Bool
    private(set) var status: HTTPStatus?
    private(set) var bytesSent = 0
    /// Why the answer was cut (`abort`), for the request log (attack15 U1: `"aborted":true` said nothing of why).
    private(set) var abortReason: String?
    /// A streamed answer's head, held until the first part of its body leaves with it (`beginStream(holdingHead:)`).
    private var heldHead: [UInt8] = []
    /// How a streamed body is framed (chunked or not), kept after the stream ends: the shutdown's ending needs it.
    private var streamIsChunked: Bool?
    /// No write has failed partway: the client's bytes end where a message or chunk ends, so more may follow.
    private var endsOnABoundary = true
    /// The shutdown's ending is being written: the one write allowed after the cut (`endCutByShutdown`).
    private var writesShutdownEnding = false
    /// The answer was aborted before the shutdown cut it (its client left, its walk failed): it has its ending.
    private var abortedBeforeCut = false
    /// What a `sendNow` wrote only part of: the rest, for `sendUnsent()`.
    private var unsent: [[UInt8]] = []

    package init(
        sink: any ResponseSink, request: HTTPRequestHead, keepsAlive: Bool, writeTimeout: Duration,
        isDraining: @escaping () -> Bool = { false }, isCut: @escaping () -> Bool = { false }
    ) {
        self.isDraining = isDraining
        self.isCut = isCut
        self.sink = sink
        self.isHead = request.method == .head
        self.version = request.version
        self.keepsAlive = keepsAlive
        self.writeTimeout = writeTimeout
    }

    /// Whether the answer was left unfinished because the shutdown's grace period ended.
    package var isCutByShutdown: Bool {
        if case .finished = state { return false }
        return !abortedBeforeCut && isCut()
    }

    /// The status code the client received, for logs and metrics: 0 when an answer cut by the shutdown sent nothing
    /// (the status it was about to send never left).
    package var deliveredStatus: Int {
        isCutByShutdown && bytesSent == 0 ? 0 : status?.code ?? 0
    }

    /// Whether anything has been written yet; after that the status line can no longer change.
    package var hasStarted: Bool {
        if case .idle = state { return false }
        return true
    }

    /// Sends a complete response with `Content-Length`.
    /// - Parameter headers: taken, not copied (`consuming`): setting the length in the caller's fields, whose last
    ///   use this is, does not copy them first (issue 13).
    package nonisolated(nonsending) func send(_ status: HTTPStatus, headers: consuming HTTPHeaders = HTTPHeaders(), body: [UInt8]) async throws {
        // Head and body leave in one gathering write, the body never copied behind the head.
        try await write(parts(status, headers: &headers, body: body))
    }

    /// `send(_:headers:body:)` without waiting: what the sink takes now is written, the rest kept for `sendUnsent()`
    /// (issue 13: an answer written on the socket loop's thread as its request arrives). Same bytes.
    package func sendNow(_ status: HTTPStatus, headers: consuming HTTPHeaders = HTTPHeaders(), body: [UInt8]) {
        writeNow(parts(status, headers: &headers, body: body))
    }

    /// The head and body of a complete response with `Content-Length`; the answer is finished from here on.
    private func parts(_ status: HTTPStatus, headers: inout HTTPHeaders, body: [UInt8]) -> [[UInt8]] {
        precondition(!hasStarted, "a response is written once")
        // A HEAD answer, or a 304, may state the length its GET would have had (RFC 9110 §8.6, §9.3.2); otherwise
        // count the body. A 304 that states none (an NDJSON answer's: its length is not known) gets none: any other
        // would be a length its GET would not have had, and a 304 need not send one (RFC 9110 §15.4.5: it carries
        // the fields a 200 would have, and `Content-Length` is not among those it must; §8.6 lets it state the 200's).
        let statesItsGETsLength = (isHead || !status.allowsBody) && body.isEmpty && headers.contains("Content-Length")
        if !statesItsGETsLength, !(status == .notModified && body.isEmpty) {
            headers.set("Content-Length", String(body.count))
        }
        let head = head(status, headers: &headers)
        state = .finished
        return !isHead && status.allowsBody ? [head, body] : [head]
    }

    /// Sends a complete response whose own header lines were serialized ahead (`prepared`: `name: value CRLF` each,
    /// `Content-Length` included): only the status line and the per-request fields (Date, Server, Connection) are
    /// built, with the caller's `perRequest` ones, and head, prepared lines and body leave in one gathering write.
    package nonisolated(nonsending) func send(_ status: HTTPStatus, prepared: [UInt8], body: [UInt8], perRequest fields: HTTPHeaders = HTTPHeaders()) async throws {
        try await write(parts(status, prepared: prepared, body: body, perRequest: fields))
    }

    /// `send(_:prepared:body:perRequest:)` without waiting, as `sendNow(_:headers:body:)`. Same bytes.
    package func sendNow(_ status: HTTPStatus, prepared: [UInt8], body: [UInt8], perRequest fields: HTTPHeaders = HTTPHeaders()) {
        writeNow(parts(status, prepared: prepared, body: body, perRequest: fields))
    }

    /// The head, prepared lines and body of a complete response; the answer is finished from here on.
    private func parts(_ status: HTTPStatus, prepared: [UInt8], body: [UInt8], perRequest fields: HTTPHeaders) -> [[UInt8]] {
        precondition(!hasStarted, "a response is written once")
        var perRequest = fields
        var head = head(status, headers: &perRequest)
        head.removeLast(2)  // the empty line that ends the section comes after the prepared fields
        state = .finished
        return !isHead && status.allowsBody ? [head, prepared, ChunkedEncoding.crlf, body] : [head, prepared, ChunkedEncoding.crlf]
    }

    /// Whether a `sendNow` left bytes the sink could not take at once: `sendUnsent()` writes them.
    package var hasUnsent: Bool { !unsent.isEmpty }

    /// Writes what a `sendNow` could not, waiting for the client as any write does; a failure aborts the answer (cut
    /// partway: the client has its first bytes).
    package nonisolated(nonsending) func sendUnsent() async {
        guard !unsent.isEmpty else { return }
        let parts = unsent
        unsent = []
        do {
            try await write(parts)
        } catch {
            endsOnABoundary = false
        }
    }

    /// One write without waiting (`sendNow`): counts what the sink took, keeps the rest in `unsent`; a failure aborts
    /// the answer, as `counting` does.
    private func writeNow(_ parts: [[UInt8]]) {
        guard writesShutdownEnding || !isCut() else {
            abort("shutdown_cut")
            return
        }
        var position = AsyncSocket.PartsPosition(parts)
        let (written, error) = sink.writeNow(parts, from: &position)
        bytesSent += written
        if let error {
            if written != 0 { endsOnABoundary = false }
            abort(Self.abortReason(error))
            return
        }
        guard !position.isAtEnd(of: parts) else { return }
        unsent = position.unwritten(of: parts)
    }

    /// Sends a complete response with `Content-Length` whose body is `slices` of arrays the caller holds (a merged
    /// answer of one cached page: `[`, the page's items, `]`): head and body leave in one gathering write, the body
    /// never copied (issue 13).
    package nonisolated(nonsending) func send(_ status: HTTPStatus, headers: consuming HTTPHeaders, slices: [ArraySlice<UInt8>]) async throws {
        precondition(!hasStarted, "a response is written once")
        headers.set("Content-Length", String(slices.reduce(0) { $0 + $1.count }))
        let head = head(status, headers: &headers)
        state = .finished
        // One array made to size, not a literal grown by `+`.
        var parts: [ArraySlice<UInt8>] = []
        parts.reserveCapacity(1 + slices.count)
        parts.append(head[...])
        if !isHead && status.allowsBody { parts += slices }
        try await counting(parts.reduce(0) { $0 + $1.count }, .slices(parts))
    }

    /// Sends a complete response with `Content-Length` whose body is `parts`: bytes the caller holds, uncopied, and
    /// ranges of open entry files, sent from the files (a merged answer of pages read back from the cache; issue 13,
    /// eighth pass). A failure once the head is out (a client that left, a file cut short) closes the connection short
    /// of `Content-Length`.
    package nonisolated(nonsending) func send(_ status: HTTPStatus, headers: consuming HTTPHeaders, parts: [ResponseBodyPart]) async throws {
        precondition(!hasStarted, "a response is written once")
        let length = parts.reduce(0) { $0 + $1.count }
        headers.set("Content-Length", String(length))
        let head = head(status, headers: &headers)
        state = .finished
        var all: [ResponseBodyPart] = []
        all.reserveCapacity(1 + parts.count)
        all.append(.bytes(head[...]))
        if !isHead && status.allowsBody { all += parts }
        try await counting(head.count + (isHead || !status.allowsBody ? 0 : length), .bodyParts(all))
    }

    /// Sends a response whose length is known ahead and whose body comes in bounded chunks (a spooled answer):
    /// `Content-Length`, then each chunk as the client takes it, so no more than one chunk waits in memory. A HEAD
    /// answer states the length and sends no body (RFC 9110 §9.3.2).
    ///
    /// - Throws: the error `nextChunk` throws, a socket error, or `BodyLengthMismatch` when the chunks do not add up
    ///   to `contentLength`. The head may be out by then: the connection closes short of `Content-Length`, so the
    ///   client sees an incomplete answer rather than a wrong one.
    package nonisolated(nonsending) func send(
        _ status: HTTPStatus, headers: consuming HTTPHeaders, contentLength: Int, chunks nextChunk: () throws -> [UInt8]?
    ) async throws {
        precondition(!hasStarted, "a response is written once")
        headers.set("Content-Length", String(contentLength))
        // The head goes out with the first chunk: one gathering write for a small answer.
        var pending = head(status, headers: &headers)
        guard !isHead && status.allowsBody else {
            state = .finished
            try await write([pending])
            return
        }
        state = .streaming(chunked: false)
        var remaining = contentLength
        do {
            while let chunk = try nextChunk() {
                guard chunk.count <= remaining else { throw BodyLengthMismatch() }
                remaining -= chunk.count
                try await write([pending, chunk])
                pending = []
            }
            guard remaining == 0 else { throw BodyLengthMismatch() }
            if !pending.isEmpty { try await write([pending]) }
        } catch {
            // A failed write gave its reason already (the first one is kept).
            abort("body_length_mismatch")
            throw error
        }
        state = .finished
    }

    /// The chunks of a `Content-Length` body did not add up to the length announced.
    package struct BodyLengthMismatch: Error {}

    /// Starts a streamed body: chunked for HTTP/1.1, delimited by closing the connection for HTTP/1.0.
    /// - Parameter holdingHead: the head waits for the body's first part (or its end) and leaves in the same write:
    ///   an answer that is at hand whole is one write, not three (head, data, last chunk). A HEAD answer's head is
    ///   sent at once.
    package nonisolated(nonsending) func beginStream(_ status: HTTPStatus, headers: consuming HTTPHeaders = HTTPHeaders(), holdingHead: Bool = false) async throws {
        precondition(!hasStarted, "a response is written once")
        let chunked = version == .http1_1
        if chunked {
            headers.set("Transfer-Encoding", "chunked")
        } else {
            keepsAlive = false
        }
        let bytes = head(status, headers: &headers)
        if isHead {
            state = .finished
        } else {
            state = .streaming(chunked: chunked)
            streamIsChunked = chunked
            if holdingHead {
                heldHead = bytes
                return
            }
        }
        try await write(bytes)
    }

    /// Sends part of a streamed body, after a head still held; empty input sends no chunk (an empty chunk would end
    /// the stream), only a held head: a walk about to wait has sent its status line, lines or not.
    package nonisolated(nonsending) func writeStreamed(_ bytes: [UInt8]) async throws {
        guard case .streaming(let chunked) = state else { return }
        let parts = writeParts(framing: bytes, chunked: chunked)
        guard !parts.isEmpty else { return }
        try await write(parts)
    }

    /// Ends a streamed body cleanly: `last` (its final part, which may be empty), then the last chunk for HTTP/1.1
    /// with `trailers` as its trailer section (RFC 9112 §7.1.2; announce them in the head's `Trailer` field), all in
    /// one write with a head still held. HTTP/1.0 streams cannot carry trailers.
    package nonisolated(nonsending) func endStream(last: [UInt8] = [], trailers: HTTPHeaders = HTTPHeaders()) async throws {
        guard case .streaming(let chunked) = state else { return }
        state = .finished
        var parts = writeParts(framing: last, chunked: chunked)
        if chunked { parts.append(trailers.count == 0 ? ChunkedEncoding.lastChunk : Self.lastChunk(trailers: trailers)) }
        guard !parts.isEmpty else { return }
        try await write(parts)
    }

    /// The parts of one write: the held head (once), then the parts that carry `bytes` of a streamed body, none for
    /// none (an empty chunk would end the stream). One array made to size, with room for a last chunk after them
    /// (issue 13: joined from small arrays, they were three allocations a write).
    private func writeParts(framing bytes: [UInt8], chunked: Bool) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        parts.reserveCapacity(5)
        if !heldHead.isEmpty {
            parts.append(heldHead)
            heldHead = []
        }
        guard !bytes.isEmpty else { return parts }
        guard chunked else {
            parts.append(bytes)
            return parts
        }
        // RFC 9112 §7.1 — chunk-size CRLF chunk-data CRLF, in one gathering write around the data, not a copy.
        parts.append(ChunkedEncoding.sizeLine(bytes.count))
        parts.append(bytes)
        parts.append(ChunkedEncoding.crlf)
        return parts
    }

    /// `last-chunk` with `trailers` (not empty) as its trailer section.
    private static func lastChunk(trailers: HTTPHeaders) -> [UInt8] {
        var bytes: [UInt8] = Array("0\r\n".utf8)
        for field in trailers { bytes += Array("\(field.name): \(field.value)\r\n".utf8) }
        bytes += Array("\r\n".utf8)
        return bytes
    }

    /// The connection closes after this answer (`Connection: close`): for responders that imitate servers that
    /// close every connection (the mock's Werkzeug).
    package func closeAfterAnswer() {
        keepsAlive = false
    }

    /// Ends the answer unfinished (a stream without its last chunk, or no answer at all): the connection closes so
    /// that the client sees the loss. `reason` is logged with it; the first one given is kept.
    package func abort(_ reason: String) {
        if case .aborted = state {} else if !isCut() { abortedBeforeCut = true }
        state = .aborted
        keepsAlive = false
        if abortReason == nil { abortReason = reason }
    }

    /// Ends an answer the shutdown cut (its grace period ended; the connection calls this once its responder has
    /// returned), with the shutdown's own words, never the responder's (contract22 F5, DESIGN.md "a failure after an
    /// NDJSON stream has begun"): an answer that sent nothing yet becomes a `503 shutting_down` with `Retry-After` (a
    /// held head is dropped), a stream under way gets the error line and no last chunk. A body sent with its length,
    /// or one cut partway by a failed write, can take nothing more: the connection closes short of it. One attempt:
    /// the task is cancelled, so a client not taking bytes fails the write at once (the socket is closed after it).
    package nonisolated(nonsending) func endCutByShutdown() async {
        guard isCutByShutdown, !writesShutdownEnding else { return }
        writesShutdownEnding = true
        abort("shutdown_cut")
        guard endsOnABoundary else { return }
        if bytesSent == 0 {
            heldHead = []
            let refusal = Server.refusal(draining: true)
            var headers = ErrorResponse.headers(for: refusal)
            let body = ErrorResponse.body(for: refusal)
            headers.set("Content-Length", String(body.count))
            let head = head(refusal.status, headers: &headers)
            try? await write(isHead ? [head] : [head, body])
        } else if let chunked = streamIsChunked {
            try? await write(writeParts(framing: ErrorResponse.streamFailureLine(for: Self.shutdownCut), chunked: chunked))
        }
    }

    /// The error line of a stream the shutdown cut.
    static let shutdownCut = HTTPError(
        .serviceUnavailable, code: "shutdown_cut",
        message: "the server stopped before the answer was complete (its shutdown's grace period ended); ask again")

    /// The request log's reason for an answer cut by a failed write.
    static func abortReason(_ error: SocketError) -> String {
        switch error {
        case .disconnected: "client_closed"
        case .timedOut: "client_write_timeout"
        case .cancelled: "socket_closed"
        // No errno: a body sent from a cache file found the file changed or shorter under it (`StagedBodyParts`).
        case .failed(_, 0): "body_file_changed"
        case .failed, .invalidAddress: "write_failed: \(error)"
        }
    }

    /// The status line and `headers`, then the writer's own fields: `Date`, `Server` (unless the responder set one)
    /// and `Connection` when it is not the version's default. They are appended as bytes after the responder's
    /// fields, not set one by one into `headers` and serialized with them (issue 13: each `set` scans the fields,
    /// and every answer, the memo's included, pays for the head); a responder's own `Date`, or `Connection` where the
    /// writer sets one, is dropped first.
    private func head(_ status: HTTPStatus, headers: inout HTTPHeaders) -> [UInt8] {
        self.status = status
        if keepsAlive && isDraining() { keepsAlive = false }
        let connection: String? = keepsAlive ? (version == .http1_0 ? "keep-alive" : nil) : "close"
        // A look first: `remove` would copy fields that the caller shares (a memoized answer's) to find nothing.
        if headers.contains("Date") { headers.remove("Date") }
        if connection != nil, headers.contains("Connection") { headers.remove("Connection") }
        let addsServer = !headers.contains("Server")
        let date = HTTPDate.formatOncePerSecond(Date())
        return HTTPResponseHead(status: status, version: .http1_1, headers: headers).serialized(reservingExtra: 96) { bytes in
            HTTPResponseHead.appendFieldLine("Date", date, to: &bytes)
            if addsServer { HTTPResponseHead.appendFieldLine("Server", "PageProxy", to: &bytes) }
            if let connection { HTTPResponseHead.appendFieldLine("Connection", connection, to: &bytes) }
        }
    }

    private nonisolated(nonsending) func write(_ bytes: [UInt8]) async throws {
        try await write([bytes])
    }

    /// Writes `parts` in order, without joining them.
    private nonisolated(nonsending) func write(_ parts: [[UInt8]]) async throws {
        try await counting(parts.reduce(0) { $0 + $1.count }, .parts(parts))
    }

    /// What one write hands the sink. Not a closure: a closure literal runs on the generic executor, and calling one
    /// was an executor hop a write (issue 13).
    private enum Outgoing {
        case parts([[UInt8]])
        case slices([ArraySlice<UInt8>])
        case bodyParts([ResponseBodyPart])
    }

    /// Runs one write of `length` bytes and counts what the client took: all of it, or when the write fails (the
    /// client left, or took nothing for the write timeout), the part the sink says left before (attack5 m1: an answer
    /// cut after 6.5 MB was logged `"bytes":0`). A failed write aborts the answer.
    ///
    /// Once the shutdown has cut the answers, every write but its ending is refused (nothing leaves; the answer is
    /// aborted): what the cancelled work writes (an error for the page it lost) must not reach the client.
    private nonisolated(nonsending) func counting(_ length: Int, _ outgoing: Outgoing) async throws(SocketError) {
        guard writesShutdownEnding || !isCut() else {
            abort("shutdown_cut")
            throw .cancelled
        }
        let before = sink.bytesDelivered
        do {
            switch outgoing {
            case .parts(let parts): try await sink.write(parts, deadline: .idle(writeTimeout))
            case .slices(let slices): try await sink.write(slices: slices, deadline: .idle(writeTimeout))
            case .bodyParts(let parts): try await sink.write(bodyParts: parts, deadline: .idle(writeTimeout))
            }
            bytesSent += length
        } catch {
            let delivered = before.flatMap { before in sink.bytesDelivered.map { min(length, max(0, $0 - before)) } }
            bytesSent += delivered ?? 0
            if delivered != 0 { endsOnABoundary = false }
            abort(Self.abortReason(error))
            throw error
        }
    }
}

extension HTTPStatus {
    /// RFC 9110 §6.4.1 — 1xx, 204 and 304 responses never carry content.
    package var allowsBody: Bool { code >= 200 && code != 204 && code != 304 }
}

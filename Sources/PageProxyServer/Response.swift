import PageProxyCore

/// The one answer to one request, handed to the responder by the connection.
///
/// Every way of answering is `consuming`: once a response is sent, streamed or given up, the value is gone, so
/// answering a request twice does not compile (Hummingbird's `ResponseWriter`). Write failures (a client that
/// left, a write timeout) are not thrown: the writer marks the answer aborted and the connection closes.
package struct Response: ~Copyable {
    private let writer: ResponseWriter
    private let watch: DisconnectWatch?

    /// - Parameter watch: the connection's watch for its client leaving; nil where there is none (in-memory tests).
    package init(writer: ResponseWriter, watch: DisconnectWatch? = nil) {
        self.writer = writer
        self.watch = watch
    }

    /// Arms the connection's watch when called: from then on, a client that closes its connection cancels the task
    /// answering it (for answers that wait on upstreams: `PageWalker.Options.beforeWaiting`, so that a walk whose
    /// pages are all at hand never arms it, which costs a task); the connection stops the watch once the answer is done.
    package var armDepartureWatch: @Sendable () -> Void {
        // A closure that captures one object, not an optional one, needs no context of its own (issue 13: an
        // allocation a walk).
        guard let watch else { return {} }
        return { watch.arm() }
    }

    /// Sends a complete response with `Content-Length`; `headers` are taken, not copied, as by the writer.
    package nonisolated(nonsending) consuming func send(_ status: HTTPStatus, headers: consuming HTTPHeaders = HTTPHeaders(), body: [UInt8]) async {
        try? await writer.send(status, headers: headers, body: body)
    }

    /// Sends a complete response whose own header lines were serialized ahead (see `ResponseWriter`).
    package nonisolated(nonsending) consuming func send(_ status: HTTPStatus, prepared: [UInt8], body: [UInt8], perRequest: HTTPHeaders = HTTPHeaders()) async {
        try? await writer.send(status, prepared: prepared, body: body, perRequest: perRequest)
    }

    /// `send(_:headers:body:)` without waiting, on the socket loop's thread (`HTTPResponder.respondFromMemoryNow`): what
    /// the client cannot take at once is written by the connection's task after (`ResponseWriter.sendNow`).
    package consuming func sendNow(_ status: HTTPStatus, headers: consuming HTTPHeaders = HTTPHeaders(), body: [UInt8]) {
        writer.sendNow(status, headers: headers, body: body)
    }

    /// `send(_:prepared:body:perRequest:)` without waiting, as `sendNow(_:headers:body:)`.
    package consuming func sendNow(_ status: HTTPStatus, prepared: [UInt8], body: [UInt8], perRequest: HTTPHeaders = HTTPHeaders()) {
        writer.sendNow(status, prepared: prepared, body: body, perRequest: perRequest)
    }

    /// `send(_:recording:)` without waiting, as `sendNow(_:headers:body:)`.
    package consuming func sendNow(_ error: any HTTPResponseError, recording record: RequestRecord) -> RequestRecord {
        var record = record
        record.error = error.code
        writer.sendNow(error.status, headers: ErrorResponse.headers(for: error), body: ErrorResponse.body(for: error))
        return record
    }

    /// Sends a complete response whose body is slices of arrays the caller holds, uncopied (see `ResponseWriter`).
    package nonisolated(nonsending) consuming func send(_ status: HTTPStatus, headers: consuming HTTPHeaders, slices: [ArraySlice<UInt8>]) async {
        try? await writer.send(status, headers: headers, slices: slices)
    }

    /// Sends a complete response whose body is `parts`, bytes uncopied and file ranges sent from their files (see
    /// `ResponseWriter`).
    package nonisolated(nonsending) consuming func send(_ status: HTTPStatus, headers: consuming HTTPHeaders, parts: [ResponseBodyPart]) async {
        try? await writer.send(status, headers: headers, parts: parts)
    }

    /// Sends a response of known length whose body comes in bounded chunks (a spooled answer).
    /// - Throws: what `nextChunk` throws, or `ResponseWriter.BodyLengthMismatch`; the connection then closes short
    ///   of `Content-Length`, so the client sees an incomplete answer rather than a wrong one. A client that left is
    ///   not an error here.
    package nonisolated(nonsending) consuming func send(
        _ status: HTTPStatus, headers: consuming HTTPHeaders, contentLength: Int, chunks nextChunk: () throws -> [UInt8]?
    ) async throws {
        do {
            try await writer.send(status, headers: headers, contentLength: contentLength, chunks: nextChunk)
        } catch is SocketError {
            // The client went away; the writer has marked the answer aborted.
        }
    }

    /// Answers with `error` (rendered by `ErrorResponse`) and returns `record` naming its code.
    package nonisolated(nonsending) consuming func send(_ error: any HTTPResponseError, recording record: RequestRecord) async -> RequestRecord {
        var record = record
        record.error = error.code
        try? await writer.send(error.status, headers: ErrorResponse.headers(for: error), body: ErrorResponse.body(for: error))
        return record
    }

    /// Starts a streamed body (chunked for HTTP/1.1, close-delimited for HTTP/1.0).
    /// - Parameter holdingHead: the head leaves with the body's first part (`ResponseWriter.beginStream`).
    /// - Throws: `SocketError` when the client cannot take the head.
    package nonisolated(nonsending) consuming func beginStream(
        _ status: HTTPStatus, headers: consuming HTTPHeaders = HTTPHeaders(), holdingHead: Bool = false
    ) async throws(SocketError) -> ResponseStream {
        do {
            try await writer.beginStream(status, headers: headers, holdingHead: holdingHead)
        } catch let error as SocketError {
            throw error
        } catch {
            throw .disconnected
        }
        return ResponseStream(writer: writer)
    }

    /// Closes the connection after this answer (`Connection: close`), before it is sent.
    package func closeAfterAnswer() {
        writer.closeAfterAnswer()
    }

    /// Gives the answer up without sending anything (its client has left): the connection closes.
    package consuming func abandon() {
        writer.abort("client_left")
    }
}

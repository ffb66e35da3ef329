import PageProxyCore

/// A streamed body under way; ending it, cleanly or not, is `consuming`, so a stream ends once.
package struct ResponseStream: ~Copyable {
    private let writer: ResponseWriter

    package init(writer: ResponseWriter) {
        self.writer = writer
    }

    /// Whether the stream is already complete with its head (a HEAD request): nothing more is sent.
    package var isHeadOnly: Bool {
        if case .finished = writer.state { return true }
        return false
    }

    /// Sends part of the body; empty input sends only a head still held (`Response.beginStream(holdingHead:)`).
    /// - Throws: `SocketError` when the client cannot take it (the stream is then aborted).
    package nonisolated(nonsending) func write(_ bytes: [UInt8]) async throws {
        try await writer.writeStreamed(bytes)
    }

    /// Ends the body cleanly: `last` (the body's final part, in the same write), then the last chunk, with
    /// `trailers` (RFC 9112 §7.1.2).
    package nonisolated(nonsending) consuming func end(last: [UInt8] = [], trailers: HTTPHeaders = HTTPHeaders()) async {
        try? await writer.endStream(last: last, trailers: trailers)
    }

    /// Ends the body with `error`'s failure line and without the last chunk, so that the client sees the loss; returns
    /// `record` naming the error's code.
    package nonisolated(nonsending) consuming func fail(with error: any HTTPResponseError, recording record: RequestRecord) async -> RequestRecord {
        var record = record
        record.error = error.code
        try? await writer.writeStreamed(ErrorResponse.streamFailureLine(for: error))
        writer.abort("failed: " + error.code)
        return record
    }

    /// Ends the body without its last chunk (the client left, or the shutdown cut it); `reason` is logged.
    package consuming func abort(_ reason: String) {
        writer.abort(reason)
    }
}

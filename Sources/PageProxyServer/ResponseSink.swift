import PageProxyCore

/// Where a response's bytes go: the client's socket in production, memory in responder tests.
package protocol ResponseSink: Sendable {
    /// Writes `parts` in order, without joining them.
    /// - Throws: `SocketError` when the client cannot take them by `deadline` or has gone.
    func write(_ parts: [[UInt8]], deadline: ContinuousClock.Instant?) async throws(SocketError)
}

extension AsyncSocket: ResponseSink {}

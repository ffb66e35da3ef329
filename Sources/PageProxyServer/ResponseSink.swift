import PageProxyCore

/// Where a response's bytes go: the client's socket in production, memory in responder tests.
package protocol ResponseSink: Sendable {
    /// Writes `parts` in order, without joining them.
    /// - Throws: `SocketError` when the client cannot take them by `deadline` or has gone.
    func write(_ parts: [[UInt8]], deadline: ContinuousClock.Instant?) async throws(SocketError)

    /// Writes `slices` in order, from the arrays the caller holds (a socket sends them without copying them).
    /// - Throws: as `write(_:deadline:)`.
    func write(slices: [ArraySlice<UInt8>], deadline: ContinuousClock.Instant?) async throws(SocketError)
}

extension ResponseSink {
    /// A sink with no gathering write of its own (memory in tests) takes the slices as arrays.
    package func write(slices: [ArraySlice<UInt8>], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        try await write(slices.map(Array.init), deadline: deadline)
    }
}

extension AsyncSocket: ResponseSink {}

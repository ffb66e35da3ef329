/// A connection that HTTP/1.1 messages to an upstream travel over: a plain socket, or TLS on one.
package protocol UpstreamConnection: AnyObject, Sendable {
    /// Appends what arrives next (up to `maxBytes`) to `buffer`; returns the count, 0 at the end of the stream.
    func read(
        into buffer: inout [UInt8], maxBytes: Int, deadline: ContinuousClock.Instant?
    ) async throws(SocketError) -> Int
    /// Writes every byte.
    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws(SocketError)
    /// Closes the connection; a task waiting on it wakes with `.cancelled`.
    func close()
    /// Acknowledges the next segments at once (`TCP_QUICKACK`), so that a server that writes a response's head and
    /// body separately with Nagle's algorithm on is not held ~40 ms waiting for a delayed ACK of the head.
    func acknowledgeAtOnce()
    /// Whether the connection may carry the next request: open, and nothing unread on it (`AsyncSocket.hasNothingToRead`).
    func isQuiet() -> Bool
}

extension AsyncSocket: UpstreamConnection {
    package func acknowledgeAtOnce() {
        _ = withOpenDescriptor { _ in socket.setQuickAck() }
    }

    package func isQuiet() -> Bool { hasNothingToRead() }
}

extension TLSStream: UpstreamConnection {
    package func acknowledgeAtOnce() {
        socket.acknowledgeAtOnce()
    }

    /// Any record waiting (data, an alert) makes the connection not quiet: a new one is cheaper than a wrong answer.
    package func isQuiet() -> Bool { socket.hasNothingToRead() }
}

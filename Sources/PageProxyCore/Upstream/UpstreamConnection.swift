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
    /// Whether the connection may carry the next request, looked at with no request outstanding; nothing is read.
    func idleState() -> UpstreamIdleState
}

/// What a connection with no request outstanding has waiting (`UpstreamConnection.idleState`).
package enum UpstreamIdleState: Sendable, Equatable {
    /// Open, nothing waiting: it may carry the next request.
    case quiet
    /// Not to be used, and no sign of a fault: closed (by either side), or bytes that are no stray answer — an HTTP
    /// `408` a server writes as it closes an idle connection (Apache's mod_reqtimeout did), empty lines, TLS records
    /// (a close_notify, a session ticket: only OpenSSL could tell them from data).
    case unusable
    /// Bytes no request asked for (a second response after an answer, a body after a 304): the next request sent on
    /// the connection would read them as its answer (attack13 H3, attack17 L2).
    case unsolicited
}

extension AsyncSocket: UpstreamConnection {
    package func acknowledgeAtOnce() {
        _ = withOpenDescriptor { _ in socket.setQuickAck() }
    }

    package func idleState() -> UpstreamIdleState {
        // Enough of the first bytes to tell a closing 408 ("HTTP/1.1 408") from a stray answer.
        withUnsafeTemporaryAllocation(byteCount: 12, alignment: 1) { first in
            guard let peeked = withOpenDescriptor({ _ in socket.peek(into: first) }) else { return .unusable }
            guard let count = peeked else { return .quiet }
            return count == 0 ? .unusable : UpstreamIdleState(waiting: UnsafeRawBufferPointer(rebasing: first[..<count]))
        }
    }
}

extension TLSStream: UpstreamConnection {
    package func acknowledgeAtOnce() {
        socket.acknowledgeAtOnce()
    }

    /// Any record waiting (data, an alert, a ticket) makes the connection unusable: a new one is cheaper than a wrong
    /// answer. Undecrypted, none is taken as a stray answer (`unusable`, not `unsolicited`).
    package func idleState() -> UpstreamIdleState { socket.idleState() == .quiet ? .quiet : .unusable }
}

extension UpstreamIdleState {
    /// Judges the first bytes waiting on a plain connection with no request outstanding.
    init(waiting first: UnsafeRawBufferPointer) {
        if first.allSatisfy({ $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }) {
            self = .unusable
            return
        }
        // "HTTP/1.x 408", or as much of it as has arrived: a server's notice that it closes the idle connection.
        let notice = Array("HTTP/1.1 408".utf8)
        let isNotice = first.indices.allSatisfy { index in index == 7 ? first[index] == UInt8(ascii: "0") || first[index] == UInt8(ascii: "1") : first[index] == notice[index] }
        self = isNotice ? .unusable : .unsolicited
    }

    /// Judges bytes left in the buffer after a whole response was parsed (a stray answer, or a body after a 304).
    init(leftover: [UInt8]) {
        self = leftover.isEmpty ? .quiet : leftover.withUnsafeBytes { UpstreamIdleState(waiting: UnsafeRawBufferPointer(rebasing: $0.prefix(12))) }
    }
}

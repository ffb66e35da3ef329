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
    /// `408` a server writes as it closes an idle connection (Apache's mod_reqtimeout did), empty lines, a TLS record
    /// OpenSSL could not judge yet (one still arriving, an alert).
    case unusable
    /// Not to be used: bytes that would not parse as an answer (a body a `304` or `204` carried, RFC 9112 §6.3: not part
    /// of the response; padding past a `Content-Length`). A sloppy server's, not blamed on its origin (review26 M4); but
    /// a response read just before them on a reused connection may be misframed, and is asked again.
    case unframed
    /// The start of a response no request asked for (a second response after an answer): the next request sent on the
    /// connection would read it as its answer (attack13 H3, attack17 L2).
    case unsolicited
}

extension AsyncSocket: UpstreamConnection {
    package func acknowledgeAtOnce() {
        _ = withOpenDescriptor { _ in socket.setQuickAck() }
    }

    package func idleState() -> UpstreamIdleState {
        // Enough of the first bytes to tell a closing 408 ("HTTP/1.1 408"), after a few empty lines, from a stray answer.
        withUnsafeTemporaryAllocation(byteCount: UpstreamIdleState.judgedBytes, alignment: 1) { first in
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

    /// Judges the decrypted bytes waiting, as on a plain connection (review26 M5: undecrypted, a stray answer was never
    /// told from a session ticket). A record still arriving, an alert or the peer's close makes the connection unusable.
    package func idleState() -> UpstreamIdleState {
        withUnsafeTemporaryAllocation(byteCount: UpstreamIdleState.judgedBytes, alignment: 1) { first in
            switch peekWaiting(into: first) {
            case .data(let count): UpstreamIdleState(waiting: UnsafeRawBufferPointer(rebasing: first[..<count]))
            // OpenSSL read what the socket held; bytes that came since, or its end, are seen there.
            case .nothing: socket.idleState() == .quiet ? .quiet : .unusable
            case .arriving, .closed: .unusable
            }
        }
    }
}

extension UpstreamIdleState {
    /// How many of the first bytes waiting are looked at.
    static let judgedBytes = 32

    /// Judges the first bytes waiting on a connection with no request outstanding. Only what the next request would
    /// read as its answer is a fault: the start of a status line ("HTTP/", after any empty lines, which the parser
    /// skips: RFC 9112 §2.2), unless it is a server's closing `408`. Other bytes (a body after a `304` or `204`, padding
    /// past a `Content-Length`) would fail to parse as an answer (`unframed`).
    init(waiting bytes: UnsafeRawBufferPointer) {
        let first = bytes.drop { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }.prefix(12)
        // "HTTP/1.x 408", or as much of it as has arrived: a server's notice that it closes the idle connection.
        let notice = Array("HTTP/1.1 408".utf8)
        let isNotice = zip(first, notice).enumerated().allSatisfy { index, pair in
            index == 7 ? pair.0 == UInt8(ascii: "0") || pair.0 == UInt8(ascii: "1") : pair.0 == pair.1
        }
        let isStatusLine = zip(first, "HTTP/".utf8).allSatisfy { $0 == $1 }
        self = first.isEmpty || isNotice ? .unusable : isStatusLine ? .unsolicited : .unframed
    }

    /// Judges bytes left in the buffer after a whole response was parsed (a stray answer, or a body after a 304).
    init(leftover: [UInt8]) {
        self = leftover.isEmpty ? .quiet : leftover.withUnsafeBytes { UpstreamIdleState(waiting: UnsafeRawBufferPointer(rebasing: $0.prefix(Self.judgedBytes))) }
    }
}

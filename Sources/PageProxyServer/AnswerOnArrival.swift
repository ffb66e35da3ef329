import PageProxyCore

/// A connection's requests answered from memory on the socket loop's thread the moment they arrive, while the
/// connection's task waits between requests (issue 13: nginx's way). The loop reads the request, parses it, asks
/// `HTTPResponder.respondFromMemoryNow` and writes the answer, with no task resumed, no executor hop and no async frame;
/// the task goes on waiting, its idle deadline renewed. Anything else wakes the task with what arrived, and it goes on
/// as if it had read it itself: a request not answered so (`Connection.Handoff.request`), part of one, bytes that fail
/// to parse (the task parses them again and refuses them), an answer the client could not take whole at once
/// (`.unfinished`: the task writes the rest), the end of stream, or more than `Connection.answersBetweenYields`
/// pipelined requests at once (the loop's other sockets get their turn).
///
/// An edge that came while nobody waited (the task had read the bytes it announced without waiting for it) is taken
/// once by the task itself, on its own thread, when it begins to wait (`SocketReadiness.wait`): else each wait after
/// such a read ended at once and the task answered every request, each read leaving the next stale edge.
///
/// The same bytes, counts and log lines as the task's answers: `respondFromMemoryNow` answers as `respondFromMemory`
/// does (one preparation, `Response.sendNow`), and the connection's own `begin` and `recordAnswer` frame both.
final class AnswerOnArrival: ReadInterceptor {
    private let connection: Connection
    private let session: Connection.Session
    private let watch: DisconnectWatch

    init(connection: Connection, session: Connection.Session, watch: DisconnectWatch) {
        self.connection = connection
        self.session = session
        self.watch = watch
    }

    /// Waits for the next request until `deadline`, answering on the loop's thread what it can. True once the task
    /// is woken (what arrived is in the session: a handoff, bytes, or nothing, and then the socket is read); false when
    /// the socket must be read first, at once or after an edge this did not take (`AsyncSocket.waitUntilReadable`); nil when the connection should end
    /// (the idle deadline passed, the socket closed, the task was cancelled).
    nonisolated(nonsending) func wait(until deadline: ContinuousClock.Instant) async -> Bool? {
        do {
            return try await connection.socket.waitUntilReadable(deadline: deadline, interceptor: self)
        } catch {
            return nil
        }
    }

    /// On the loop's thread, the task suspended (see `Connection.Session` for why only one of them uses the session).
    func readable() -> SocketReadiness.Interception {
        let count: Int
        switch connection.socket.readNow(into: &session.buffer) {
        case .success(nil): return .keepWaiting(deadline: session.idleDeadline)
        case .success(let read?) where read > 0: count = read
        // The end of stream, or an error: the task's own read finds it again.
        default: return .wake
        }
        for _ in 0..<Connection.answersBetweenYields {
            let request: HTTPRequestHead
            do {
                guard case .request(let head) = try session.parser.parse(&session.buffer) else { return .wake }
                request = head
            } catch {
                return .wake
            }
            guard answer(request) else { return .wake }
            // A read that filled its buffer may have left bytes in the socket, which no new edge announces.
            if session.buffer.isEmpty { return count < AsyncSocket.readBytes ? .keepWaiting(deadline: session.idleDeadline) : .wake }
        }
        return .wake
    }

    /// Answers `request` from memory if the responder can now; false when the task must take over (the session's
    /// handoff says with what).
    private func answer(_ request: HTTPRequestHead) -> Bool {
        let started = ContinuousClock.now
        // Made only for an answer: a request declined costs no writer, and its connection is not marked busy twice.
        var writer: ResponseWriter?
        let outcome = connection.responder.respondFromMemoryNow(to: request) {
            let made = connection.begin(request)
            writer = made
            return Response(writer: made, watch: watch)
        }
        switch outcome {
        case .answered(let record):
            guard let writer else {
                // Answered with no response made: the responder's bug; nothing was sent, so the task answers it.
                session.handoff = .request(request, declined: false)
                return false
            }
            let answer = Connection.Unfinished(request: request, writer: writer, record: record, started: started)
            // `Connection.end`'s waits have nothing to do for it otherwise: no write is left, the shutdown has not cut
            // it, and the watch is not armed (an answer from memory never arms it).
            guard !writer.hasUnsent, !writer.isCutByShutdown else {
                session.handoff = .unfinished(answer)
                return false
            }
            guard case .kept = connection.recordAnswer(answer, session, fromMemory: true) else {
                session.handoff = .end
                return false
            }
            return true
        case .notInMemory, .later:
            if let writer {
                // The responder made the response and did not answer: its bug; the client sees a cut (as in
                // `Connection.answer`).
                writer.abort("responder_left_unanswered")
                session.handoff = .end
                return false
            }
            session.handoff = .request(request, declined: outcome.isFinal)
            return false
        }
    }
}

extension MemoryAnswerNow {
    /// `.notInMemory`: `respondFromMemory` is not asked after it.
    fileprivate var isFinal: Bool {
        if case .notInMemory = self { true } else { false }
    }
}

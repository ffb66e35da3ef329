import PageProxyCore

/// One client connection: reads requests, hands each to the responder, and writes the answers in order.
///
/// A request is parsed, answered and written before the next one is parsed, so pipelined requests are answered in
/// order and a client that floods requests is simply not read (NIO's `HTTPServerPipelineHandler`). Protocol
/// errors are answered here (400, 408, 413, 414, 431, 501, 505) and close the connection; everything else is
/// the responder's. Where the responder answers from memory (`HTTPResponder.answersOnSocketLoop`), the connection
/// reads, parses and asks it on the epoll loop's thread, and goes to the pool for a request it declines (issue 13).
package struct Connection: Sendable {
    package let socket: AsyncSocket
    package let responder: any HTTPResponder
    package let registry: ConnectionRegistry
    /// This connection's entry in `registry`, which it marks idle or busy.
    package let membership: ConnectionRegistry.Membership
    package let limits: ServerLimits
    package let logger: Logger
    /// The level of each request's log line (the built-in mock's are `debug`, beside the proxy's own).
    package let requestLogLevel: LogLevel

    package func run() async {
        defer {
            socket.close()
            registry.remove(socket)
        }
        // One watch for the connection's life, armed by the responders that wait on upstreams, stopped after each
        // answer; a client that leaves while it is armed cancels `serve` (the request loop) through its task group.
        let watch = DisconnectWatch(socket: socket)
        await watch.guarding { await serve(watch: watch) }
    }

    /// The request loop's state from one request to the next.
    ///
    /// `@unchecked Sendable`, safe because one party at a time uses it: the connection's task, except while that task
    /// is suspended in an intercepted wait for reading (`AsyncSocket.waitUntilReadable(deadline:interceptor:)`), when
    /// only the `AnswerOnArrival` of the same connection uses it, on the loop's thread. `SocketReadiness` takes the
    /// waiting task's continuation out of its slot under its lock before it calls the interceptor and puts it back (or
    /// resumes it) under the same lock after: the task cannot run while the interceptor does, and the lock (then the
    /// continuation's resumption) orders each party's accesses before the other's.
    final class Session: @unchecked Sendable {
        var buffer: [UInt8] = []
        var parser: HTTPRequestParser
        var requestStarted: ContinuousClock.Instant?
        var idleDeadline: ContinuousClock.Instant
        /// What the interceptor left for the task when it woke it.
        var handoff: Handoff?

        init(parser: HTTPRequestParser, idleDeadline: ContinuousClock.Instant) {
            self.parser = parser
            self.idleDeadline = idleDeadline
        }
    }

    /// What `AnswerOnArrival` leaves for the connection's task when it wakes it, beyond bytes in the buffer.
    enum Handoff {
        /// A request it parsed and did not answer: `respondFromMemoryNow` said `.later` (`declined: false`) or
        /// `.notInMemory` (`declined: true`: `respond` answers it).
        case request(HTTPRequestHead, declined: Bool)
        /// An answer sent in part (the client could not take it all at once) or cut by the shutdown: the task writes
        /// the rest and ends it as any answer.
        case unfinished(Unfinished)
        /// The connection closes.
        case end
    }

    /// An answer begun on the loop's thread, for the task to end.
    struct Unfinished {
        let request: HTTPRequestHead
        let writer: ResponseWriter
        let record: RequestRecord
        let started: ContinuousClock.Instant
    }

    /// What the task reads next.
    private enum Next {
        case request(HTTPRequestHead, declined: Bool)
        case unfinished(Unfinished)
        case end
    }

    /// How one request went.
    enum Answered {
        /// Answered, and the connection waits for the next request; `fromMemory` when `respondFromMemory` answered.
        case kept(fromMemory: Bool)
        case closing
        /// `respondFromMemory` could not answer it: nothing was sent.
        case notFromMemory
    }

    /// Why the connection left the socket loop.
    private enum LoopExit {
        case closing
        /// This request needs `respond`, on the pool.
        case needsPool(HTTPRequestHead)
    }

    /// The request loop: on the loop while requests are answered from memory, on the pool from the first that is
    /// not until the next that is.
    private func serve(watch: DisconnectWatch) async {
        // A new connection gets the header timeout for its first byte, not the idle timeout: a client that
        // connects and says nothing must not hold a connection slot for a keep-alive period.
        let session = Session(parser: HTTPRequestParser(limits: limits.http), idleDeadline: .now + limits.headerTimeout)
        // Memo hits answered on the loop's thread as they arrive, while this task waits between requests.
        let onArrival = responder.answersOnSocketLoop ? AnswerOnArrival(connection: self, session: session, watch: watch) : nil
        var onLoop = responder.answersOnSocketLoop
        var pending: HTTPRequestHead?
        var answeredOnPool = 0
        while true {
            if onLoop {
                // On the loop's thread: read, parse and answer from memory with no hop, until a request needs more.
                let exit = await withTaskExecutorPreference(EpollLoop.shared) { () async -> LoopExit in
                    var answered = 0
                    while true {
                        let outcome: Answered
                        switch await nextRequest(session, onArrival: onArrival) {
                        case .end: return .closing
                        case .request(let request, declined: true): return .needsPool(request)
                        case .request(let request, declined: false):
                            outcome = await answer(request, session, watch: watch, fromMemory: .only)
                            if case .notFromMemory = outcome { return .needsPool(request) }
                        case .unfinished(let unfinished):
                            outcome = await end(unfinished, session, watch: watch, fromMemory: true)
                        }
                        switch outcome {
                        case .kept:
                            // Requests already read (pipelined), or reads that keep finding bytes, are answered
                            // without the task ever suspending: one client would hold the loop's thread and every
                            // other socket would wait. Let the loop's other work run between such answers.
                            answered += 1
                            if !session.buffer.isEmpty || answered % Self.answersBetweenYields == 0 { await Task.yield() }
                            continue
                        case .closing, .notFromMemory: return .closing
                        }
                    }
                }
                guard case .needsPool(let request) = exit else { return }
                pending = request
            }
            // On the pool (the preference has ended): a walk, a fetch, anything that may take long.
            let outcome: Answered
            if let waiting = pending {
                // `respondFromMemory` has said no to it already.
                pending = nil
                outcome = await answer(waiting, session, watch: watch, fromMemory: .never)
            } else {
                switch await nextRequest(session, onArrival: onArrival) {
                case .end: return
                case .request(let request, let declined):
                    outcome = await answer(request, session, watch: watch, fromMemory: declined || !responder.answersOnSocketLoop ? .never : .first)
                case .unfinished(let unfinished):
                    outcome = await end(unfinished, session, watch: watch, fromMemory: true)
                }
            }
            switch outcome {
            case .kept(let fromMemory):
                // Back to the loop once a request is answered from memory again (one hop), not after each walk.
                onLoop = fromMemory
                // The pool has as many threads as cores: a client pipelining quick answers (an error, a large memo
                // hit) would keep one of them, and a few such clients every one, from the listener's accepts and
                // everyone's walks. The same rule as on the loop.
                answeredOnPool += 1
                if !fromMemory, !session.buffer.isEmpty || answeredOnPool % Self.answersBetweenYields == 0 { await Task.yield() }
            case .closing, .notFromMemory:
                return
            }
        }
    }

    /// At most this many answers in a row on the loop, or on the pool, without giving the thread to other work.
    static let answersBetweenYields = 8

    /// Whether `answer` asks `respondFromMemory`.
    private enum MemoryUse {
        case never
        case first
        case only
    }

    /// The next request's head, reading as needed; nil when the connection should end (after a refusal, a timeout,
    /// the end of stream).
    private nonisolated(nonsending) func nextRequest(_ session: Session, onArrival: AnswerOnArrival?) async -> Next {
        while true {
            switch session.handoff.take() {
            case .request(let head, let declined)?: return .request(head, declined: declined)
            case .unfinished(let unfinished)?: return .unfinished(unfinished)
            case .end?: return .end
            case nil: break
            }
            do {
                switch try session.parser.parse(&session.buffer) {
                case .request(let head):
                    session.requestStarted = nil
                    return .request(head, declined: false)
                case .needMoreData:
                    if session.buffer.isEmpty && !session.parser.hasPartialRequest {
                        session.requestStarted = nil
                        // Between requests: the next may be answered on the loop's thread as it arrives, this task
                        // waiting on; it wakes for anything else, with what arrived.
                        if let onArrival {
                            switch await onArrival.wait(until: session.idleDeadline) {
                            case true?: continue
                            case false?: break
                            case nil: return .end
                            }
                        }
                    } else if session.requestStarted == nil {
                        session.requestStarted = .now
                    }
                    guard await receive(into: &session.buffer, requestStarted: session.requestStarted, idleDeadline: session.idleDeadline) else {
                        return .end
                    }
                }
            } catch {
                await refuse(error)
                return .end
            }
        }
    }

    /// Answers one request (`respondFromMemory` and/or `respond`, as `fromMemory` says), then records and logs it.
    private nonisolated(nonsending) func answer(_ request: HTTPRequestHead, _ session: Session, watch: DisconnectWatch, fromMemory: MemoryUse) async -> Answered {
        let writer = begin(request)
        let started = ContinuousClock.now
        let record: RequestRecord
        var answeredFromMemory = false
        if fromMemory == .never {
            record = await responder.respond(to: request, response: Response(writer: writer, watch: watch))
        } else if fromMemory == .first {
            guard let answered = await responder.respondPreferringMemory(to: request, response: Response(writer: writer, watch: watch)) else {
                // `respondFromMemory` took the response without answering: a responder's bug; the client sees a cut.
                writer.abort("responder_left_unanswered")
                return .closing
            }
            record = answered.record
            answeredFromMemory = answered.fromMemory
        } else {
            var response: Response? = Response(writer: writer, watch: watch)
            if let answered = await responder.respondFromMemory(to: request, response: &response) {
                record = answered
                answeredFromMemory = true
            } else if fromMemory == .only, response != nil {
                return .notFromMemory
            } else if let response = response.take() {
                record = await responder.respond(to: request, response: response)
            } else {
                // `respondFromMemory` took the response without answering: a responder's bug; the client sees a cut.
                writer.abort("responder_left_unanswered")
                return .closing
            }
        }
        return await end(Unfinished(request: request, writer: writer, record: record, started: started), session, watch: watch, fromMemory: answeredFromMemory)
    }

    /// The connection is busy with `request`: its writer.
    func begin(_ request: HTTPRequestHead) -> ResponseWriter {
        _ = membership.setIdle(false)
        // A body left unread (`Expect: 100-continue` answered at once) may still arrive: close after the answer.
        let keepsAlive = request.isKeepAlive && !request.hasUnreadBody && !registry.closesAfterEachAnswer
        let registry = self.registry
        return ResponseWriter(
            sink: socket, request: request, keepsAlive: keepsAlive, writeTimeout: limits.writeTimeout,
            isDraining: { registry.closesAfterEachAnswer }, isCut: { registry.hasCutAll })
    }

    /// Ends an answer the responder has given: writes what `sendNow` left, the shutdown's ending of an answer it cut,
    /// stops the watch, then records and logs it.
    private nonisolated(nonsending) func end(_ answer: Unfinished, _ session: Session, watch: DisconnectWatch, fromMemory: Bool) async -> Answered {
        await answer.writer.sendUnsent()
        // An answer the shutdown cut gets the shutdown's own ending, written here by the task that owns the writer,
        // after the responder's last write (contract22 F5).
        await answer.writer.endCutByShutdown()
        // The watch must have stopped reading before the connection reads the next request.
        await watch.stop()
        return recordAnswer(answer, session, fromMemory: fromMemory)
    }

    /// Counts and logs an answer whose writes are over; whether the connection waits for the next request.
    func recordAnswer(_ answer: Unfinished, _ session: Session, fromMemory: Bool) -> Answered {
        let writer = answer.writer
        let duration = ContinuousClock.now - answer.started
        responder.answered(answer.record, status: writer.deliveredStatus, bytes: writer.bytesSent, duration: duration)
        logRequest(answer.request, writer: writer, record: answer.record, duration: duration)
        guard writer.keepsAlive, case .finished = writer.state, !registry.closesAfterEachAnswer else { return .closing }
        guard membership.setIdle(true) else { return .closing }
        session.idleDeadline = .now + limits.idleTimeout
        return .kept(fromMemory: fromMemory)
    }

    /// Reads more bytes; returns false when the connection should end (end of stream, error, timeout).
    private nonisolated(nonsending) func receive(into buffer: inout [UInt8], requestStarted: ContinuousClock.Instant?, idleDeadline: ContinuousClock.Instant) async -> Bool {
        let deadline = requestStarted.map { $0 + limits.headerTimeout } ?? idleDeadline
        do {
            return try await socket.read(into: &buffer, deadline: deadline) > 0
        } catch .timedOut {
            // A client that started a request and stalled gets a 408; an idle keep-alive connection just closes.
            if requestStarted != nil {
                await refuse(HTTPError(.requestTimeout, code: "request_timeout", message: "the request head did not arrive in time"))
            }
            return false
        } catch {
            return false
        }
    }

    private nonisolated(nonsending) func refuse(_ error: any HTTPResponseError) async {
        let head = HTTPRequestHead.placeholder
        let writer = ResponseWriter(sink: socket, request: head, keepsAlive: false, writeTimeout: .seconds(2))
        let record = await Response(writer: writer).send(error, recording: RequestRecord())
        responder.refused(status: error.status, bytes: writer.bytesSent)
        logRequest(head, writer: writer, record: record, duration: .zero)
    }

    private func logRequest(_ request: HTTPRequestHead, writer: ResponseWriter, record: RequestRecord, duration: Duration) {
        // The redaction of the path's query is per request: not for a line nobody will read.
        guard logger.logs(requestLogLevel) else { return }
        var fields: [(String, LogValue)] = [
            ("method", .string(request.method.rawValue)),
            ("path", .string(RequestLogPath.redacted(request))),
            ("status", .int(writer.deliveredStatus)),
            ("bytes", .int(writer.bytesSent)),
            ("duration_ms", .double(duration.milliseconds)),
        ]
        var record = record
        // The answer did not fail: the shutdown's grace period ended (the upstream or client error it caused is not
        // the cause).
        if writer.isCutByShutdown { record.error = "shutdown_cut" }
        fields += record.logFields
        if case .aborted = writer.state {
            fields.append(("aborted", .bool(true)))
            // The socket the shutdown closed reads as a client that left (contract22 F5): say which it was.
            if let reason = writer.isCutByShutdown ? "shutdown_cut" : writer.abortReason { fields.append(("abort_reason", .string(reason))) }
        }
        logger.log(requestLogLevel, "request", fields)
    }
}

extension HTTPRequestHead {
    /// Stands for a request that could not be parsed, when its error answer is written and logged.
    package static let placeholder = HTTPRequestHead(method: .get, target: "-", version: .http1_1, headers: HTTPHeaders())
}

import PageProxyCore

/// One client connection: reads requests, hands each to the responder, and writes the answers in order.
///
/// A request is parsed, answered and written before the next one is parsed, so pipelined requests are answered in
/// order and a client that floods requests is simply not read (NIO's `HTTPServerPipelineHandler`). Protocol
/// errors are answered here (400, 408, 413, 414, 431, 501, 505) and close the connection; everything else is
/// the responder's.
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
    /// Where the connection's task runs, when it prefers the socket loop (`HTTPResponder.answersOnSocketLoop`).
    package let executor: ConnectionExecutor?

    package init(
        socket: AsyncSocket, responder: any HTTPResponder, registry: ConnectionRegistry, membership: ConnectionRegistry.Membership,
        limits: ServerLimits, logger: Logger, requestLogLevel: LogLevel, executor: ConnectionExecutor? = nil
    ) {
        self.socket = socket
        self.responder = responder
        self.registry = registry
        self.membership = membership
        self.limits = limits
        self.logger = logger
        self.requestLogLevel = requestLogLevel
        self.executor = executor
    }

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

    private func serve(watch: DisconnectWatch) async {
        var buffer: [UInt8] = []
        var parser = HTTPRequestParser(limits: limits.http)
        var requestStarted: ContinuousClock.Instant?
        // A new connection gets the header timeout for its first byte, not the idle timeout: a client that
        // connects and says nothing must not hold a connection slot for a keep-alive period.
        var idleDeadline = ContinuousClock.now + limits.headerTimeout
        while true {
            let request: HTTPRequestHead
            do {
                switch try parser.parse(&buffer) {
                case .request(let head):
                    request = head
                case .needMoreData:
                    if buffer.isEmpty && !parser.hasPartialRequest {
                        requestStarted = nil
                    } else if requestStarted == nil {
                        requestStarted = .now
                    }
                    guard await receive(into: &buffer, requestStarted: requestStarted, idleDeadline: idleDeadline) else { return }
                    continue
                }
            } catch {
                await refuse(error)
                return
            }
            requestStarted = nil
            _ = membership.setIdle(false)
            // A body left unread (`Expect: 100-continue` answered at once) may still arrive: close after the answer.
            let keepsAlive = request.isKeepAlive && !request.hasUnreadBody && !registry.closesAfterEachAnswer
            let registry = self.registry
            let writer = ResponseWriter(
                sink: socket, request: request, keepsAlive: keepsAlive, writeTimeout: limits.writeTimeout,
                isDraining: { registry.closesAfterEachAnswer }, isCut: { registry.hasCutAll })
            let started = ContinuousClock.now
            // Each request starts where the loop wakes it; one that walks moves to the pool (`leaveSocketLoop`).
            executor?.returnToLoop()
            let record = await responder.respond(to: request, response: Response(writer: writer, watch: watch, executor: executor))
            // The watch must have stopped reading before the connection reads the next request.
            await watch.stop()
            let duration = ContinuousClock.now - started
            responder.answered(record, status: writer.deliveredStatus, bytes: writer.bytesSent, duration: duration)
            logRequest(request, writer: writer, record: record, duration: duration)
            guard writer.keepsAlive, case .finished = writer.state, !registry.closesAfterEachAnswer else { return }
            guard membership.setIdle(true) else { return }
            idleDeadline = .now + limits.idleTimeout
        }
    }

    /// Reads more bytes; returns false when the connection should end (end of stream, error, timeout).
    private func receive(into buffer: inout [UInt8], requestStarted: ContinuousClock.Instant?, idleDeadline: ContinuousClock.Instant) async -> Bool {
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

    private func refuse(_ error: any HTTPResponseError) async {
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
        if case .aborted = writer.state { fields.append(("aborted", .bool(true))) }
        logger.log(requestLogLevel, "request", fields)
    }
}

extension HTTPRequestHead {
    /// Stands for a request that could not be parsed, when its error answer is written and logged.
    package static let placeholder = HTTPRequestHead(method: .get, target: "-", version: .http1_1, headers: HTTPHeaders())
}

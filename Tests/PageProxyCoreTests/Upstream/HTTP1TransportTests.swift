import PageProxyMock
import Synchronization
import Testing

@testable import PageProxyCore

/// What this suite's test servers read that was meant for another server (a connection taken from another test's
/// listener): a failure that shows no answer of its own server names them (flaky17).
private let strayRequests = Mutex<[String]>([])

/// PageProxy's HTTP/1.1 client against a one-shot upstream on a loopback socket that answers with canned bytes.
///
/// Every canned answer names its server (`X-Served-By`: the test that started it and its port), and a server notes a
/// request whose `Host` is another port (`strayRequests`): a test answered by another test's server says whose.
@Suite struct HTTP1TransportTests {
    /// The next connection `listener` accepts. Each `accept` runs while the listener is open (`withOpenDescriptor`, as
    /// `Listener`'s do): a raw one after a wait that the listener's close ended reached the descriptor's number once
    /// another socket had it, and took another test's connection (flaky17).
    private static func accept(_ listener: AsyncSocket, deadline: ContinuousClock.Instant) async throws -> Socket {
        while true {
            let accepted = listener.withOpenDescriptor { fd in Result { () throws(SocketError) in try Socket(fd: fd).accept() } }
            guard let accepted else { throw SocketError.cancelled }
            if let client = try accepted.get() { return client }
            try await listener.waitUntilReadable(deadline: deadline)
        }
    }

    /// A listening socket on a free loopback port, and the name its answers carry: the test's and the port.
    private static func listen(for test: String) throws -> (listener: AsyncSocket, port: Int, name: String) {
        let listening = try Socket.makeListening(on: SocketAddress(host: "127.0.0.1", port: 0))
        let port = listening.localPort() ?? 0
        return (AsyncSocket(socket: listening), port, "\(test)@\(port)")
    }

    /// `answer` naming `server` in an `X-Served-By` field when it starts with a status line (late bytes are sent as
    /// they are).
    private static func tagged(_ answer: String, by server: String) -> [UInt8] {
        guard answer.hasPrefix("HTTP/1.1 "), let end = answer.firstIndex(of: "\r\n") else { return Array(answer.utf8) }
        return Array((answer[..<end] + "\r\nX-Served-By: \(server)" + answer[end...]).utf8)
    }

    /// Reads one request head from `connection` for the server `name` on `port`; nil when the connection closed first.
    /// A head sent to another port is noted in `strayRequests`.
    private static func readHead(
        _ connection: AsyncSocket, server name: String, port: Int, deadline: ContinuousClock.Instant
    ) async throws -> String? {
        var bytes: [UInt8] = []
        while !String(decoding: bytes, as: UTF8.self).contains("\r\n\r\n") {
            guard try await connection.read(into: &bytes, deadline: deadline) > 0 else { return nil }
        }
        let head = String(decoding: bytes, as: UTF8.self)
        if !head.contains("\r\nHost: 127.0.0.1:\(port)\r\n") {
            let host = head.split(separator: "\r\n").first { $0.hasPrefix("Host: ") } ?? "no Host"
            strayRequests.withLock { $0.append("\(name) read a request for \(host)") }
        }
        return head
    }

    /// Which server answered `response`, for a failure's message.
    private static func servedBy(_ response: UpstreamResponse) -> String {
        "answered by \(response.headers["X-Served-By"] ?? "an untagged server"); stray requests: \(strayRequests.withLock { $0 })"
    }

    /// A send that failed, with what the suite's servers read that was not theirs.
    private struct Unanswered: Error, CustomStringConvertible {
        let error: UpstreamError
        let strays: [String]
        var description: String { "\(error.description) (stray requests: \(strays))" }
    }

    /// `request` sent through `transport`; a failure names the stray requests seen so far.
    private static func send(_ request: UpstreamRequest, through transport: HTTP1Transport) async throws(Unanswered) -> UpstreamResponse {
        do {
            return try await transport.send(request, timeout: .seconds(30), maxBodyBytes: 1 << 20)
        } catch {
            throw Unanswered(error: error, strays: strayRequests.withLock { $0 })
        }
    }

    /// Accepts one connection, reads the request head, answers `response`, closes; returns the request head.
    private static func serveOnce(_ response: String, test: String = #function) throws -> (port: Int, request: Task<String, any Error>) {
        let (listener, port, name) = try listen(for: test)
        let request = Task {
            defer { listener.close() }
            let deadline = ContinuousClock.now + .seconds(30)
            let connection = AsyncSocket(socket: try await Self.accept(listener, deadline: deadline))
            defer { connection.close() }
            let head = try await readHead(connection, server: name, port: port, deadline: deadline) ?? ""
            try await connection.write(tagged(response, by: name), deadline: deadline)
            // Held open (kept alive) until the client closes it.
            var rest: [UInt8] = []
            while (try? await connection.read(into: &rest, deadline: deadline)) ?? 0 > 0 { rest.removeAll() }
            return head
        }
        return (port, request)
    }

    /// Accepts connections one at a time; on each reads one request head and writes that connection's `answers`, one
    /// write each, the second and later only once `late` opens, holding the connection open until the client closes it.
    private static func serve(_ connections: [[String]], late: Gate, test: String = #function) throws -> (port: Int, done: Task<Void, any Error>) {
        let (listener, port, name) = try listen(for: test)
        let done = Task {
            defer { listener.close() }
            let deadline = ContinuousClock.now + .seconds(30)
            for answers in connections {
                let connection = AsyncSocket(socket: try await Self.accept(listener, deadline: deadline))
                _ = try await readHead(connection, server: name, port: port, deadline: deadline)
                for (index, answer) in answers.enumerated() {
                    if index > 0 { await late.wait() }
                    try await connection.write(tagged(answer, by: name), deadline: deadline)
                }
                Task {
                    var rest: [UInt8] = []
                    while (try? await connection.read(into: &rest, deadline: deadline)) ?? 0 > 0 { rest.removeAll() }
                    connection.close()
                }
            }
        }
        return (port, done)
    }

    @Test("a kept connection the upstream wrote to after its answer (a body after a 304) is closed, not reused: its bytes never answer the next request (attack13 H3)")
    func bytesAfterAnAnswerAreNeverTheNextAnswer() async throws {
        let late = Gate()
        let (port, done) = try Self.serve([
            ["HTTP/1.1 304 Not Modified\r\nETag: \"1\"\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\n[{\"id\":\"evil\"}]"],
            ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]"],
        ], late: late)
        let transport = HTTP1Transport()
        let url = PageURL(scheme: "http", host: "127.0.0.1", port: port, path: "/items", query: "page=1")
        let first = try await Self.send(UpstreamRequest(url: url), through: transport)
        #expect(first.status.code == 304, "\(Self.servedBy(first))")
        // The 304 was taken and its connection kept; now the upstream writes a response no one asked for.
        late.open()
        let key = ConnectionPool.Key(origin: url.origin)
        #expect(await yieldUntil(within: .seconds(20)) {
            guard let kept = transport.pool.takeIdle(for: key) else { return true }
            let arrived = (kept as? AsyncSocket)?.socket.isPeerClosed() == false
            transport.pool.giveBack(kept, for: key)
            return arrived
        })
        let second = try await Self.send(UpstreamRequest(url: url), through: transport)
        #expect(second.body == Array("[]".utf8), "\(Self.servedBy(second))")
        #expect(transport.pool.connectionsOpened == 2)
        try await done.value
        transport.pool.closeAll()
    }

    @Test("a 304 or 204 whose head declares a body (Transfer-Encoding; a Content-Length above 0, a 304's too: review21 L1) is not kept: a body or a whole response sent after its head, late, never answers the next request (retest13 H3: 2 ms late was enough)",
          arguments: ["304 Not Modified\r\nETag: \"1\"\r\nTransfer-Encoding: chunked", "204 No Content\r\nTransfer-Encoding: chunked",
                      "204 No Content\r\nContent-Length: 16", "304 Not Modified\r\nETag: \"1\"\r\nContent-Length: 16"])
    func aBodilessAnswerDeclaringABodyIsNotKept(head: String) async throws {
        // Written once the second request has reached the kept connection: no check before its reuse could see it.
        let evil = "HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\n[{\"id\":\"evil\"}]"
        let (first, second, opened) = try await Self.twoRequests(firstAnswer: "HTTP/1.1 \(head)\r\n\r\n", thenOnTheSameConnection: evil)
        #expect([204, 304].contains(first.status.code), "\(Self.servedBy(first))")
        #expect(second.body == Array("[]".utf8), "\(Self.servedBy(second))")
        #expect(opened == 2)
    }

    @Test("a 304 with Content-Length: 0, or none, keeps its connection: the second request is answered on it",
          arguments: ["", "Content-Length: 0\r\n"])
    func a304WithoutALengthIsKept(length: String) async throws {
        let (first, second, opened) = try await Self.twoRequests(
            firstAnswer: "HTTP/1.1 304 Not Modified\r\nETag: \"1\"\r\n\(length)\r\n", thenOnTheSameConnection: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n[1]")
        #expect(first.status.code == 304, "\(Self.servedBy(first))")
        #expect(second.body == Array("[1]".utf8), "\(Self.servedBy(second))")
        #expect(opened == 1)
    }

    @Test("review26 M4: a stray misframed (a length one past its body) and read on a reused connection is not taken either: the bytes after it are unframed, and the request goes again on a new connection")
    func aMisframedStrayIsNotTaken() async throws {
        let (_, second, opened) = try await Self.twoRequests(
            firstAnswer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]",
            thenOnTheSameConnection: "HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\n[{\"id\":\"evil\"}]HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n[1]")
        #expect(second.body == Array("[]".utf8), "\(Self.servedBy(second))")
        #expect(opened == 2)
    }

    @Test("review26 M4: a 304 or 204 carrying a body with no length, an answer padded past its Content-Length, or a closing 408 after an empty line cost that connection only: the next request goes on a new one, and the origin is not blamed",
          arguments: ["HTTP/1.1 304 Not Modified\r\nETag: \"1\"\r\n\r\n{\"detail\":\"not modified\"}", "HTTP/1.1 204 No Content\r\n\r\n[]",
                      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[] \t ", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]\r\nHTTP/1.1 408 Request Timeout\r\n\r\n"])
    func aSloppyAnswerCostsItsConnectionOnly(firstAnswer: String) async throws {
        let told = Locked<[ConnectionPool.UnsolicitedBytes]>([])
        let transport = HTTP1Transport(pool: ConnectionPool(onUnsolicited: { _, seen in told.withLock { $0.append(seen) } }))
        let (first, second, opened) = try await Self.twoRequests(
            firstAnswer: firstAnswer, thenOnTheSameConnection: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n[1]", through: transport)
        #expect([200, 204, 304].contains(first.status.code), "\(Self.servedBy(first))")
        #expect(second.body == Array("[]".utf8), "\(Self.servedBy(second))")
        #expect(opened == 2)
        #expect(told.value.isEmpty)
        #expect(transport.pool.originsNotReused == 0)
    }

    @Test("bytes a server writes after a whole answer, read by the next exchange on the kept connection, fail to parse there, and that request is sent again on a new connection")
    func lateBytesOnAKeptConnectionAreRetriedFresh() async throws {
        let (first, second, opened) = try await Self.twoRequests(
            firstAnswer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]",
            thenOnTheSameConnection: #"[{"id":"late!"}]"# + "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n[1]")
        #expect(first.status.code == 200, "\(Self.servedBy(first))")
        #expect(second.body == Array("[]".utf8), "\(Self.servedBy(second))")
        #expect(opened == 2)
    }

    @Test("attack17 L2: a stray response written just before a kept connection's second answer, read with it, is not taken as that answer: the request goes again on a new connection, and the origin is reused no more")
    func aStrayResponseBeforeTheAnswerIsNotTaken() async throws {
        let told = Locked<[ConnectionPool.UnsolicitedBytes]>([])
        let transport = HTTP1Transport(pool: ConnectionPool(onUnsolicited: { _, seen in told.withLock { $0.append(seen) } }))
        let (first, second, opened) = try await Self.twoRequests(
            firstAnswer: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]",
            thenOnTheSameConnection: "HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n[{\"id\":\"evil\"}]HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n[1]",
            through: transport)
        #expect(first.body == Array("[]".utf8), "\(Self.servedBy(first))")
        #expect(second.body == Array("[]".utf8), "\(Self.servedBy(second))")
        #expect(opened == 2)
        #expect(told.value == [.afterAResponse])
    }

    @Test("retest18 L2: a response read on a reused connection with bytes waiting right after it (the answer arriving behind a stray) is asked again on a new connection and its origin told, the stray saying close too; a closed one, or a 304's late body, is no stray",
        arguments: [
            (#"{"id":"FORGED"}"#, "", UpstreamIdleState.unsolicited, true),  // kept-alive stray: the check-in peek (attack17 L2)
            (#"{"id":"FORGED"}"#, "Connection: close\r\n", .unsolicited, true),  // a stray saying close: looked at before closing
            (#"{"id":"FORGED"}"#, "HTTP/1.0 x\r\n", .unsolicited, true),  // an HTTP/1.0 stray, not kept either
            ("[]", "Connection: close\r\n", .unusable, false),  // an answer that closes, then the close: the answer
            ("", "Transfer-Encoding: chunked\r\n", .unsolicited, false),  // a 304 declaring a body, sent late (review21 L1)
        ])
    func bytesRightAfterAReusedResponseMakeItSuspect(body: String, field: String, waitingAfter: UpstreamIdleState, isAskedAgain: Bool) async throws {
        let status = body.isEmpty ? "304 Not Modified" : "200 OK"
        let version = field.hasPrefix("HTTP/1.0") ? "HTTP/1.0" : "HTTP/1.1"
        let framing = body.isEmpty ? field : (field.hasPrefix("HTTP/") ? "" : field) + "Content-Length: \(body.utf8.count)\r\n"
        let stray = ScriptedConnection(answer: Array("\(version) \(status)\r\n\(framing)\r\n\(body)".utf8), thenWaiting: waitingAfter)
        // A request asked again goes to a real upstream answering `[]`; none asked again goes to a closed port, and fails.
        var (port, request): (Int, Task<String, any Error>?) = (9, nil)
        if isAskedAgain {
            let upstream = try Self.serveOnce("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]")
            (port, request) = (upstream.port, upstream.request)
        }
        let told = Locked<[ConnectionPool.UnsolicitedBytes]>([])
        let transport = HTTP1Transport(pool: ConnectionPool(onUnsolicited: { _, seen in told.withLock { $0.append(seen) } }))
        let url = PageURL(scheme: "http", host: "127.0.0.1", port: port, path: "/items", query: "page=2")
        #expect(transport.pool.giveBack(stray, for: ConnectionPool.Key(origin: url.origin)) == .quiet)
        let response = try await Self.send(UpstreamRequest(url: url), through: transport)
        #expect(stray.wasAsked && stray.isClosed)
        if isAskedAgain {
            #expect(response.body == Array("[]".utf8), "\(Self.servedBy(response))")
            #expect(response.headers["X-Served-By"] != nil)
            #expect(told.value == [.afterAResponse])
            #expect(!transport.pool.reuses(url.origin))
            // stray19: the answer of a new connection is no suspect.
            #expect(response.reusedConnection == nil)
            _ = try await request?.value
        } else {
            #expect(response.body == Array(body.utf8))
            #expect(told.value.isEmpty)
            #expect(transport.pool.connectionsOpened == 0)
            #expect(response.reusedConnection?.isCaught == false)
        }
    }

    @Test("stray19: a response read over a reused connection carries its origin's watch, caught once the origin is (a watch first asked for after the catch too)")
    func aReusedConnectionsAnswerCarriesItsOriginsWatch() async throws {
        let transport = HTTP1Transport()
        let url = PageURL(scheme: "http", host: "127.0.0.1", port: 9, path: "/items", query: "page=2")
        let kept = ScriptedConnection(answer: Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]".utf8), thenWaiting: .quiet)
        #expect(transport.pool.giveBack(kept, for: ConnectionPool.Key(origin: url.origin)) == .quiet)
        let response = try await Self.send(UpstreamRequest(url: url), through: transport)
        #expect(kept.wasAsked)
        let watch = try #require(response.reusedConnection)
        #expect(!watch.isCaught)
        transport.pool.noteUnsolicited(from: url.origin, .whileIdle)
        #expect(watch.isCaught && transport.pool.strayWatch(for: url.origin) === watch)
        let other = PageURL(scheme: "http", host: "127.0.0.2", port: 9, path: "/items", query: nil).origin
        transport.pool.noteUnsolicited(from: other, .afterAResponse)
        #expect(transport.pool.strayWatch(for: other).isCaught)
    }

    @Test("attack17 L2: an origin caught writing to an idle kept connection gets a new connection for every later request, each sent with Connection: close, and is told once")
    func anOriginCaughtWritingUnaskedIsNotReused() async throws {
        let (listener, port, name) = try Self.listen(for: #function)
        let late = Gate()
        let heads = Locked<[String]>([])
        let evil = "HTTP/1.1 200 OK\r\nContent-Length: 16\r\n\r\n[{\"id\":\"evil\"}]"
        // Each connection answers every request on it with `[]`; the first also writes `evil`, unasked, once `late` opens.
        let upstream = Task {
            defer { listener.close() }
            let deadline = ContinuousClock.now + .seconds(30)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<3 {
                    let connection = AsyncSocket(socket: try await Self.accept(listener, deadline: deadline))
                    group.addTask {
                        defer { connection.close() }
                        while let head = try await Self.readHead(connection, server: name, port: port, deadline: deadline) {
                            heads.withLock { $0.append(head) }
                            try await connection.write(Self.tagged("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]", by: name), deadline: deadline)
                            guard index == 0 else { continue }
                            await late.wait()
                            try await connection.write(Self.tagged(evil, by: name), deadline: deadline)
                        }
                    }
                }
            }
        }
        let told = Locked<[ConnectionPool.UnsolicitedBytes]>([])
        let transport = HTTP1Transport(pool: ConnectionPool(onUnsolicited: { _, seen in told.withLock { $0.append(seen) } }))
        let url = PageURL(scheme: "http", host: "127.0.0.1", port: port, path: "/items", query: "page=1")
        let key = ConnectionPool.Key(origin: url.origin)
        #expect(try await Self.send(UpstreamRequest(url: url), through: transport).body == Array("[]".utf8))
        late.open()
        // The kept connection is looked at (and given back while quiet) until the stray response has arrived on it.
        #expect(await yieldUntil(within: .seconds(20)) {
            guard let kept = transport.pool.takeIdle(for: key) else { return true }
            transport.pool.giveBack(kept, for: key)
            return false
        })
        for _ in 0..<2 {
            let response = try await Self.send(UpstreamRequest(url: url), through: transport)
            #expect(response.body == Array("[]".utf8), "\(Self.servedBy(response))")
        }
        #expect(transport.pool.connectionsOpened == 3)
        // Seen at a check-out, or at the poll's check-in when it arrived in between: told once either way.
        #expect(told.value.count == 1)
        let sent = heads.value
        #expect(sent.count == 3)
        #expect(sent.map { $0.contains("\r\nConnection: close\r\n") } == [false, true, true])
        transport.pool.closeAll()
        listener.close()
        upstream.cancel()
        _ = try? await upstream.value
    }

    /// Two requests through one transport to an upstream whose first connection answers `firstAnswer` and then, to a
    /// second request on it, `thenOnTheSameConnection`; its second connection answers `[]`. The two responses, and how
    /// many connections were opened.
    private static func twoRequests(
        firstAnswer: String, thenOnTheSameConnection: String, through transport: HTTP1Transport = HTTP1Transport(), test: String = #function
    ) async throws -> (first: UpstreamResponse, second: UpstreamResponse, opened: Int) {
        let (listener, port, name) = try listen(for: test)
        let deadline = ContinuousClock.now + .seconds(30)
        let upstream = Task {
            defer { listener.close() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<2 {
                    let connection = AsyncSocket(socket: try await Self.accept(listener, deadline: deadline))
                    group.addTask {
                        defer { connection.close() }
                        guard try await readHead(connection, server: name, port: port, deadline: deadline) != nil else { return }
                        let answer = index == 0 ? firstAnswer : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]"
                        try await connection.write(tagged(answer, by: name), deadline: deadline)
                        guard try await readHead(connection, server: name, port: port, deadline: deadline) != nil else { return }
                        try await connection.write(tagged(thenOnTheSameConnection, by: name), deadline: deadline)
                        // Held open until the client closes it.
                        var rest: [UInt8] = []
                        while (try? await connection.read(into: &rest, deadline: deadline)) ?? 0 > 0 { rest.removeAll() }
                    }
                }
            }
        }
        let url = PageURL(scheme: "http", host: "127.0.0.1", port: port, path: "/items", query: "page=1")
        let first = try await Self.send(UpstreamRequest(url: url), through: transport)
        let second = try await Self.send(UpstreamRequest(url: url), through: transport)
        let opened = transport.pool.connectionsOpened
        transport.pool.closeAll()
        listener.close()
        upstream.cancel()
        _ = try? await upstream.value
        return (first, second, opened)
    }

    @Test("attack15 U1: a kept connection its upstream closed while idle is closed by the pool's sweep, not left in CLOSE-WAIT until the next request; one still open is kept")
    func idleConnectionsTheUpstreamClosedAreSwept() async throws {
        let (listener, port, name) = try Self.listen(for: #function)
        let closeNow = Gate()
        // Two connections, each answered once with keep-alive; the first is closed by the upstream once `closeNow` opens.
        let upstream = Task {
            defer { listener.close() }
            let deadline = ContinuousClock.now + .seconds(30)
            var held: [AsyncSocket] = []
            for _ in 0..<2 {
                let connection = AsyncSocket(socket: try await Self.accept(listener, deadline: deadline))
                _ = try await Self.readHead(connection, server: name, port: port, deadline: deadline)
                try await connection.write(Self.tagged("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]", by: name), deadline: deadline)
                held.append(connection)
            }
            await closeNow.wait()
            held[0].close()
            var rest: [UInt8] = []
            while (try? await held[1].read(into: &rest, deadline: deadline)) ?? 0 > 0 { rest.removeAll() }
            held[1].close()
        }
        let transport = HTTP1Transport(pool: ConnectionPool(sweepInterval: .milliseconds(10)))
        let url = PageURL(scheme: "http", host: "127.0.0.1", port: port, path: "/items", query: "page=1")
        let key = ConnectionPool.Key(origin: url.origin)
        // The first connection held aside while the second request goes: two connections, both kept.
        #expect(try await Self.send(UpstreamRequest(url: url), through: transport).status.code == 200)
        let kept = try #require(transport.pool.takeIdle(for: key))
        #expect(try await Self.send(UpstreamRequest(url: url), through: transport).status.code == 200)
        transport.pool.giveBack(kept, for: key)
        #expect(transport.pool.idleCount(for: key) == 2)
        closeNow.open()
        // The pool learns of the close from the socket (another thread): bounded by time, not by a count of sleeps.
        #expect(await yieldUntil(within: .seconds(30)) { transport.pool.idleCount(for: key) != 2 }, "the closed connection left the pool")
        #expect(transport.pool.idleCount(for: key) == 1)
        transport.pool.closeAll()
        try await upstream.value
    }

    private static func send(to port: Int) async throws(Unanswered) -> UpstreamResponse {
        try await send(UpstreamRequest(url: PageURL(scheme: "http", host: "127.0.0.1", port: port, path: "/items", query: "page=1")), through: HTTP1Transport())
    }

    @Test("a request asks for an identity body and names PageProxy as its user agent")
    func requestAsksForIdentity() async throws {
        let (port, request) = try Self.serveOnce("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]")
        let response = try await Self.send(to: port)
        #expect(response.body == Array("[]".utf8))
        let head = try await request.value.lowercased()
        #expect(head.contains("\r\naccept-encoding: identity\r\n"))
        #expect(head.contains("\r\nuser-agent: pageproxy/"))
    }

    @Test("the default Accept admits every JSON-based media type (JSON:API's application/vnd.api+json too)")
    func defaultAcceptAdmitsJSONFamilies() async throws {
        let (port, request) = try Self.serveOnce("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]")
        _ = try await Self.send(to: port)
        #expect(try await request.value.contains("\r\nAccept: application/json, application/*+json;q=0.9, */*;q=0.8\r\n"))
    }

    @Test("a kept-alive upstream connection is left in quick-ACK mode, so a split head and body are not held back")
    func keptConnectionAcknowledgesAtOnce() async throws {
        let (port, _) = try Self.serveOnce("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]")
        let transport = HTTP1Transport()
        let url = PageURL(scheme: "http", host: "127.0.0.1", port: port, path: "/items", query: nil)
        _ = try await Self.send(UpstreamRequest(url: url), through: transport)
        let kept = transport.pool.takeIdle(for: ConnectionPool.Key(origin: url.origin)) as? AsyncSocket
        #expect(kept != nil)
        // Linux turns a connection that sent a request soon after receiving into "ping-pong" mode, where ACKs are
        // delayed (getsockopt(TCP_QUICKACK) reads 0); PageProxy re-arms quick ACKs after every read.
        #expect(kept?.socket.isQuickAck() == true)
        kept?.close()
    }

    @Test("an error page over the body limit is still its status, with its first bytes, and its connection is not kept")
    func oversizedErrorPageKeepsItsStatus() async throws {
        let padding = String(repeating: "x", count: 2 << 20)
        let (port, _) = try Self.serveOnce("HTTP/1.1 503 Service Unavailable\r\nContent-Length: \(padding.utf8.count)\r\n\r\n\(padding)")
        let transport = HTTP1Transport()
        let url = PageURL(scheme: "http", host: "127.0.0.1", port: port, path: "/items", query: nil)
        let response = try await Self.send(UpstreamRequest(url: url), through: transport)
        #expect(response.status.code == 503)
        #expect(response.body.count <= HTTPResponseParser.cutErrorBodyBytes)
        #expect(transport.pool.takeIdle(for: ConnectionPool.Key(origin: url.origin)) == nil)
        // A 200 over the limit is still too large.
        let (okPort, _) = try Self.serveOnce("HTTP/1.1 200 OK\r\nContent-Length: \(padding.utf8.count)\r\n\r\n\(padding)")
        await #expect(throws: UpstreamError.responseTooLarge(origin: "http://127.0.0.1:\(okPort)", limit: 1 << 20)) {
            try await HTTP1Transport().send(
                UpstreamRequest(url: PageURL(scheme: "http", host: "127.0.0.1", port: okPort, path: "/items", query: nil)),
                timeout: .seconds(30), maxBodyBytes: 1 << 20)
        }
    }

    @Test("a compressed body is refused with an error that names its coding")
    func compressedBodyIsRefused() async throws {
        let (port, _) = try Self.serveOnce("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n\u{1f}\u{8b}")
        do {
            let response = try await Self.send(to: port)
            Issue.record("a \(response.status.code) was taken, \(Self.servedBy(response))")
        } catch {
            guard case .invalidResponse(_, let reason) = error.error else {
                Issue.record("expected invalidResponse, got \(error)")
                return
            }
            #expect(reason.contains("gzip"))
        }
    }
}

/// A kept connection with one scripted exchange: it takes the request, reads `answer`, and from then on its peek sees
/// `thenWaiting` (bytes that arrived behind the answer, deterministically, where a socket would race).
private final class ScriptedConnection: UpstreamConnection {
    private let answer: [UInt8]
    private let thenWaiting: UpstreamIdleState
    private let state = Mutex((asked: false, read: false, closed: false))

    init(answer: [UInt8], thenWaiting: UpstreamIdleState) {
        self.answer = answer
        self.thenWaiting = thenWaiting
    }

    var wasAsked: Bool { state.withLock { $0.asked } }
    var isClosed: Bool { state.withLock { $0.closed } }

    func read(into buffer: inout [UInt8], maxBytes: Int, deadline: ContinuousClock.Instant?) async throws(SocketError) -> Int {
        let first = state.withLock { state in
            defer { state.read = true }
            return !state.read
        }
        guard first else { return 0 }
        buffer += answer
        return answer.count
    }

    func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        state.withLock { $0.asked = true }
    }

    func close() { state.withLock { $0.closed = true } }
    func acknowledgeAtOnce() {}
    func idleState() -> UpstreamIdleState { state.withLock { $0.read } ? thenWaiting : .quiet }
}

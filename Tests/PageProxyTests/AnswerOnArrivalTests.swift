import PageProxyCore
import Synchronization
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// A request that arrives on a connection waiting between requests is answered from memory on the socket loop's
/// thread as it arrives, with no task run (`AnswerOnArrival`, issue 13); everything else wakes the connection's task,
/// which goes on as if it had read the bytes itself.
@Suite struct AnswerOnArrivalTests {
    /// `/now…` answered by `respondFromMemoryNow` (`now <target>`), `/big` too (`bigBytes` of a pattern), `/later…` left
    /// to `respondFromMemory` (`task <target>`); anything else to `respond` (`respond <target>`). Counts each way.
    final class ArrivalResponder: HTTPResponder {
        let nowCount = Mutex(0)
        let fromMemoryCount = Mutex(0)
        let respondCount = Mutex(0)
        var answersOnSocketLoop: Bool { true }

        static let bigBytes = 1 << 20
        static let big = (0..<bigBytes).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }

        func respondFromMemoryNow(to request: HTTPRequestHead, response: () -> Response) -> MemoryAnswerNow {
            if request.path.hasPrefix("/later") { return .later }
            guard request.path.hasPrefix("/now") || request.path == "/big" else { return .notInMemory }
            nowCount.withLock { $0 += 1 }
            response().sendNow(.ok, body: request.path == "/big" ? Self.big : Array("now \(request.target)".utf8))
            return .answered(RequestRecord())
        }

        func respondFromMemory(to request: HTTPRequestHead, response: inout Response?) async -> RequestRecord? {
            fromMemoryCount.withLock { $0 += 1 }
            guard request.path.hasPrefix("/now") || request.path.hasPrefix("/later"), let response = response.take() else { return nil }
            await response.send(.ok, body: Array("task \(request.target)".utf8))
            return RequestRecord()
        }

        func respond(to request: HTTPRequestHead, response: consuming Response) async -> RequestRecord {
            respondCount.withLock { $0 += 1 }
            await response.send(.ok, body: Array("respond \(request.target)".utf8))
            return RequestRecord()
        }
    }

    private static func withServer(limits: ServerLimits = ServerLimits(), _ body: (Server, ArrivalResponder) async throws -> Void) async throws {
        let responder = ArrivalResponder()
        let server = try Server(
            address: SocketAddress(host: "127.0.0.1", port: 0), limits: limits, responder: responder, logger: Logger(level: .error))
        do {
            try await body(server, responder)
        } catch {
            await server.stop(grace: .seconds(1))
            throw error
        }
        await server.stop(grace: .seconds(1))
    }

    @Test("on a kept connection, a request is answered as it arrives, respondFromMemory never asked")
    func aRequestOnAKeptConnectionIsAnsweredOnArrival() async throws {
        try await Self.withServer { server, responder in
            let client = try await RawHTTPClient.connect(port: server.port)
            // The connection's first request is read by its task (a new socket is read before it is waited on).
            #expect(try await client.request("/now?i=0").text == "task /now?i=0")
            for index in 1...5 {
                let response = try await client.request("/now?i=\(index)")
                #expect(response.status == 200)
                #expect(response.text == "now /now?i=\(index)")
            }
            #expect(responder.nowCount.withLock { $0 } == 5)
            #expect(responder.fromMemoryCount.withLock { $0 } == 1)
            #expect(responder.respondCount.withLock { $0 } == 0)
        }
    }

    @Test("pipelined requests are answered in order: eight on arrival, then the task takes the rest from the buffer")
    func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await Self.withServer { server, responder in
            let client = try await RawHTTPClient.connect(port: server.port)
            _ = try await client.request("/now?i=first")
            // Ten in one write. One read on the loop nearly always takes them all (then 8 are answered on arrival and
            // the task answers the last 2), but how the kernel splits them is not asserted: the answers come in order,
            // those given on arrival first, the rest by the task.
            try await client.send((0..<10).map { RawHTTPClient.requestText("/now?i=\($0)") }.joined())
            var answers: [String] = []
            for _ in 0..<10 { answers.append(try await client.readResponse().text) }
            let onArrival = answers.prefix { $0.hasPrefix("now ") }.count
            #expect(onArrival <= Connection.answersBetweenYields)
            let expected = (0..<10).map { "\($0 < onArrival ? "now" : "task") /now?i=\($0)" }
            #expect(answers == expected)
            // And the connection goes on: answered on arrival again once the task waits between requests.
            #expect(try await client.request("/now?i=last").text == "now /now?i=last")
            #expect(responder.respondCount.withLock { $0 } == 0)
        }
    }

    @Test("a request the responder cannot answer now wakes the task: .later asks respondFromMemory, .notInMemory goes to respond")
    func declinedRequestsWakeTheTask() async throws {
        try await Self.withServer { server, responder in
            let client = try await RawHTTPClient.connect(port: server.port)
            _ = try await client.request("/now?i=first")
            #expect(try await client.request("/later").text == "task /later")
            #expect(try await client.request("/walk").text == "respond /walk")
            #expect(try await client.request("/now?i=1").text == "now /now?i=1")
            // Pipelined after an answer on arrival: the rest of the buffer is the task's, in order.
            try await client.send(["/now?i=2", "/walk2", "/later2", "/now?i=3"].map { RawHTTPClient.requestText($0) }.joined())
            var answers: [String] = []
            for _ in 0..<4 { answers.append(try await client.readResponse().text) }
            #expect(answers == ["now /now?i=2", "respond /walk2", "task /later2", "task /now?i=3"])
            // `/walk`'s decline was final: respondFromMemory was asked for `/later`, `/later2`, `/now?i=3` and the first.
            #expect(responder.fromMemoryCount.withLock { $0 } == 4)
            #expect(responder.respondCount.withLock { $0 } == 2)
        }
    }

    @Test("an answer the client cannot take at once is written on by the task; the connection goes on")
    func anAnswerThatWouldBlockIsFinishedByTheTask() async throws {
        var limits = ServerLimits()
        limits.sendBufferBytes = 4096
        try await Self.withServer(limits: limits) { server, responder in
            let client = try await RawHTTPClient.connect(port: server.port, receiveBufferBytes: 4096)
            _ = try await client.request("/now?i=first")
            // A MiB through a few KB of buffers: the loop's one write cannot take it.
            let big = try await client.request("/big")
            #expect(big.status == 200)
            #expect(big.body == ArrivalResponder.big)
            #expect(try await client.request("/now?i=1").text == "now /now?i=1")
            #expect(responder.nowCount.withLock { $0 } == 2)
            #expect(responder.fromMemoryCount.withLock { $0 } == 1)
        }
    }

    @Test("bytes that fail to parse wake the task, which refuses them as ever; a request in parts is answered whole")
    func badAndPartialRequestsGoToTheTask() async throws {
        try await Self.withServer { server, _ in
            let client = try await RawHTTPClient.connect(port: server.port)
            _ = try await client.request("/now?i=first")
            try await client.send("GET /now?i=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            // The task holds the first part; the rest completes it.
            try await client.send("X-Part: 2\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            try await client.send("GET /now HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(try await client.readResponse().status == 505)
            #expect(await client.isClosedByServer())
        }
    }

    @Test("while the server closes after each answer, an answer on arrival says Connection: close and closes")
    func anAnswerOnArrivalClosesWhenTheServerSaysSo() async throws {
        try await Self.withServer { server, _ in
            let client = try await RawHTTPClient.connect(port: server.port)
            _ = try await client.request("/now?i=first")
            server.closeAfterEachAnswer()
            let response = try await client.request("/now?i=1")
            #expect(response.text == "now /now?i=1")
            #expect(response.header("Connection") == "close")
            #expect(await client.isClosedByServer())
        }
    }
}

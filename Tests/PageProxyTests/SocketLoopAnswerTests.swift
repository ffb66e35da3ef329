import PageProxyCore
import Synchronization
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// Where a connection's task runs when its responder answers from memory on the socket loop (issue 13): it reads,
/// parses and answers from memory on the loop's thread; a request `respondFromMemory` declines is answered by
/// `respond` on the pool, where the connection stays until it answers from memory again.
@Suite struct SocketLoopAnswerTests {
    /// Answers with where it ran (`loop` or `pool`): `/memo` from memory, anything else through `respond` (after a
    /// suspension too).
    struct PlaceResponder: HTTPResponder {
        let answersOnSocketLoop: Bool

        func respondFromMemory(to request: HTTPRequestHead, response: inout Response?) async -> RequestRecord? {
            guard request.path == "/memo", let response = response.take() else { return nil }
            await response.send(.ok, body: Array(Self.place.utf8))
            return RequestRecord()
        }

        func respond(to request: HTTPRequestHead, response: consuming Response) async -> RequestRecord {
            var places = [Self.place]
            await Task.yield()
            places.append(Self.place)
            await response.send(.ok, body: Array(places.joined(separator: ",").utf8))
            return RequestRecord()
        }

        static var place: String { EpollLoop.shared.isCurrentThread ? "loop" : "pool" }
    }

    private static func withServer(answersOnSocketLoop: Bool, _ body: (Server) async throws -> Void) async throws {
        let server = try Server(
            address: SocketAddress(host: "127.0.0.1", port: 0), limits: ServerLimits(),
            responder: PlaceResponder(answersOnSocketLoop: answersOnSocketLoop), logger: Logger(level: .error))
        do {
            try await body(server)
        } catch {
            await server.stop(grace: .seconds(1))
            throw error
        }
        await server.stop(grace: .seconds(1))
    }

    /// Asks for each target in turn on one connection; the answers' bodies.
    private static func places(_ targets: [String], port: Int) async throws -> [String] {
        let client = try await RawHTTPClient.connect(port: port)
        var answers: [String] = []
        for target in targets {
            let response = try await client.request(target)
            #expect(response.status == 200)
            answers.append(response.text)
        }
        return answers
    }

    @Test("answers from memory run on the loop; others on the pool, where the connection stays until one from memory")
    func answersFromMemoryRunOnTheLoop() async throws {
        try await Self.withServer(answersOnSocketLoop: true) { server in
            let first = try await Self.places(["/memo", "/memo", "/walk", "/walk", "/memo", "/memo", "/walk"], port: server.port)
            #expect(first == ["loop", "loop", "pool,pool", "pool,pool", "pool", "loop", "pool,pool"])
            // A new connection starts on the loop.
            let second = try await Self.places(["/walk", "/memo", "/memo"], port: server.port)
            #expect(second == ["pool,pool", "pool", "loop"])
        }
    }

    @Test("a responder that does not answer on the loop never runs there, nor is asked to answer from memory")
    func otherRespondersRunOnThePool() async throws {
        try await Self.withServer(answersOnSocketLoop: false) { server in
            let places = try await Self.places(["/memo", "/walk", "/memo"], port: server.port)
            #expect(places == ["pool,pool", "pool,pool", "pool,pool"])
        }
    }

    /// `/mark` answers from memory and starts a task on the loop that sets `ran`; `/check` answers from memory whether
    /// it has run; `/take` takes the response and declines (a responder's bug); anything else through `respond`.
    final class YieldProbeResponder: HTTPResponder {
        let ran = Mutex(false)
        let responded = Mutex(0)
        var answersOnSocketLoop: Bool { true }

        func respondFromMemory(to request: HTTPRequestHead, response: inout Response?) async -> RequestRecord? {
            switch request.path {
            case "/mark":
                Task(executorPreference: EpollLoop.shared) { self.ran.withLock { $0 = true } }
            case "/check", "/take":
                break
            default:
                return nil
            }
            guard let response = response.take() else { return nil }
            if request.path == "/take" { return nil }
            await response.send(.ok, body: Array((ran.withLock { $0 } ? "ran" : "waiting").utf8))
            return RequestRecord()
        }

        func respond(to request: HTTPRequestHead, response: consuming Response) async -> RequestRecord {
            responded.withLock { $0 += 1 }
            await response.send(.ok, body: Array("respond".utf8))
            return RequestRecord()
        }
    }

    private static func withProbeServer(_ body: (Server, YieldProbeResponder) async throws -> Void) async throws {
        let responder = YieldProbeResponder()
        let server = try Server(
            address: SocketAddress(host: "127.0.0.1", port: 0), limits: ServerLimits(), responder: responder,
            logger: Logger(level: .error))
        do {
            try await body(server, responder)
        } catch {
            await server.stop(grace: .seconds(1))
            throw error
        }
        await server.stop(grace: .seconds(1))
    }

    @Test("pipelined answers from memory leave the loop's thread to other work between them (one client cannot hold it)")
    func pipelinedAnswersFromMemoryLetOtherWorkRun() async throws {
        try await Self.withProbeServer { server, _ in
            let client = try await RawHTTPClient.connect(port: server.port)
            // Both requests in one write: the loop reads them together and answers the second from its buffer.
            try await client.send(RawHTTPClient.requestText("/mark") + RawHTTPClient.requestText("/check"))
            #expect(try await client.readResponse().text == "waiting")
            #expect(try await client.readResponse().text == "ran")
        }
    }

    @Test("a response taken from memory but not answered is a cut, never a second answer by respond")
    func aTakenResponseIsNotAnsweredTwice() async throws {
        try await Self.withProbeServer { server, responder in
            let client = try await RawHTTPClient.connect(port: server.port)
            try await client.send(RawHTTPClient.requestText("/take"))
            #expect(try await client.readUntilClose().isEmpty)
            #expect(responder.responded.withLock { $0 } == 0)
        }
    }

    @Test("a memoized answer of the 10 KB kind is written from the loop; one past 64 KiB from the pool")
    func largeMemoizedAnswersLeaveTheLoop() {
        #expect(PageProxyResponder.answersOnLoop(bodyBytes: 10_248))
        #expect(PageProxyResponder.answersOnLoop(bodyBytes: 64 << 10))
        #expect(!PageProxyResponder.answersOnLoop(bodyBytes: (64 << 10) + 1))
        #expect(!PageProxyResponder.answersOnLoop(bodyBytes: 1_034_503))
    }
}

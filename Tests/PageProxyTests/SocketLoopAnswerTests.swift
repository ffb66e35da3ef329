import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// Where a connection's task runs when its responder answers on the socket loop (issue 13): requests start on the
/// loop's thread, a request that leaves it runs on the pool, and the connection stays there until it waits for
/// its next request.
@Suite struct SocketLoopAnswerTests {
    /// Answers with where it ran (`loop` or `pool`); for `/walk`, also after leaving the loop and after a suspension.
    struct PlaceResponder: HTTPResponder {
        let answersOnSocketLoop: Bool

        func respond(to request: HTTPRequestHead, response: consuming Response) async -> RequestRecord {
            var places = [Self.place]
            if request.path == "/walk" {
                await response.leaveSocketLoop()
                places.append(Self.place)
                await Task.yield()
                places.append(Self.place)
            }
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

    @Test("in-memory answers run on the loop; a walk leaves it, and the connection's next request starts where it woke")
    func answersRunOnTheLoopUntilTheyLeaveIt() async throws {
        try await Self.withServer(answersOnSocketLoop: true) { server in
            // After an answer on the pool the connection may read its next request before it waits (then it is
            // still on the pool) or after (woken on the loop): the sequence stops before that race.
            let first = try await Self.places(["/memo", "/memo", "/walk", "/walk", "/memo"], port: server.port)
            #expect(first == ["loop", "loop", "loop,pool,pool", "pool,pool,pool", "pool"])
            // A new connection starts on the loop.
            let second = try await Self.places(["/walk", "/memo"], port: server.port)
            #expect(second == ["loop,pool,pool", "pool"])
        }
    }

    @Test("a responder that does not answer on the loop never runs there")
    func otherRespondersRunOnThePool() async throws {
        try await Self.withServer(answersOnSocketLoop: false) { server in
            let places = try await Self.places(["/memo", "/walk", "/memo"], port: server.port)
            #expect(places == ["pool", "pool,pool,pool", "pool"])
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

import PageProxyCore
import Synchronization
import Testing

@testable import PageProxyServer

/// A memo hit is answered on the socket loop's thread with no executor hop between the connection and the socket
/// (issue 13, twenty-fourth pass): `Response`, `ResponseWriter` and `ResponseSink` run on their caller's executor
/// (`nonisolated(nonsending)`). Seen from an actor: a hop anywhere on the way would reach the sink on the generic
/// executor, not on the actor.
@Suite struct CallerExecutorTests {
    /// A sink that keeps the isolation each write ran in.
    final class IsolationRecordingSink: ResponseSink {
        private let seen = Mutex<[ObjectIdentifier?]>([])

        nonisolated(nonsending) func write(_ parts: [[UInt8]], deadline: WriteDeadline) async throws(SocketError) {
            let isolation = #isolation
            seen.withLock { $0.append(isolation.map { ObjectIdentifier($0) }) }
        }

        nonisolated(nonsending) func write(slices: [ArraySlice<UInt8>], deadline: WriteDeadline) async throws(SocketError) {
            try await write(slices.map(Array.init), deadline: deadline)
        }

        nonisolated(nonsending) func write(bodyParts: [ResponseBodyPart], deadline: WriteDeadline) async throws(SocketError) {
            try await write(bodyParts.map { Array($0.bytes ?? []) }, deadline: deadline)
        }

        /// The actor each write ran on, nil for the generic executor.
        var isolations: [ObjectIdentifier?] { seen.withLock { $0 } }
    }

    /// Sends through a `Response` from inside the actor, as a connection does from its task.
    actor Caller {
        func sendPrepared(to sink: IsolationRecordingSink) async {
            let request = HTTPRequestHead(method: .get, target: "/", headers: ["Host": "x"])
            let writer = ResponseWriter(sink: sink, request: request, keepsAlive: true, writeTimeout: .seconds(5))
            await Response(writer: writer).send(.ok, prepared: Array("Content-Length: 2\r\n".utf8), body: Array("[]".utf8))
        }

        func sendEach(to sink: IsolationRecordingSink) async throws {
            let request = HTTPRequestHead(method: .get, target: "/", headers: ["Host": "x"])
            let make = { ResponseWriter(sink: sink, request: request, keepsAlive: true, writeTimeout: .seconds(5)) }
            await Response(writer: make()).send(.ok, body: Array("[]".utf8))
            await Response(writer: make()).send(.ok, headers: HTTPHeaders(), slices: [Array("[]".utf8)[...]])
            await Response(writer: make()).send(.ok, headers: HTTPHeaders(), parts: [.bytes(Array("[]".utf8)[...])])
            let stream = try await Response(writer: make()).beginStream(.ok)
            try await stream.write(Array("{}\n".utf8))
            await stream.end()
        }
    }

    @Test("a prepared answer (the memo's) reaches the sink on the caller's executor, with no hop on the way")
    func preparedAnswerStaysOnCaller() async {
        let sink = IsolationRecordingSink()
        let caller = Caller()
        await caller.sendPrepared(to: sink)
        #expect(sink.isolations == [ObjectIdentifier(caller)])
    }

    @Test("every way of answering writes on the caller's executor: a body, slices, parts and a stream")
    func everyAnswerStaysOnCaller() async throws {
        let sink = IsolationRecordingSink()
        let caller = Caller()
        try await caller.sendEach(to: sink)
        #expect(!sink.isolations.isEmpty)
        #expect(sink.isolations.allSatisfy { $0 == ObjectIdentifier(caller) })
    }
}

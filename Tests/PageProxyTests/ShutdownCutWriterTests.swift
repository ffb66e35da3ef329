import PageProxyCore
import Testing

@testable import PageProxyServer

/// How `ResponseWriter` ends an answer the shutdown cut (contract22 F5): after the cut it refuses its responder's
/// writes, and `endCutByShutdown` writes the shutdown's own ending once: a stream's error line without the last chunk,
/// or a `503 shutting_down` for an answer not begun.
@Suite struct ShutdownCutWriterTests {
    /// Whether the shutdown has cut the answers, as the registry would say.
    private final class Cut {
        var isCut = false
    }

    /// A writer for a GET over HTTP/1.1 whose cut is `cut`'s.
    private func writer(_ sink: MemoryResponseSink, cut: Cut) -> ResponseWriter {
        let request = HTTPRequestHead(method: .get, target: "/", version: .http1_1, headers: ["Host": "x"])
        return ResponseWriter(sink: sink, request: request, keepsAlive: true, writeTimeout: .seconds(5), isCut: { cut.isCut })
    }

    private static let upstreamLost = HTTPError(.badGateway, code: "upstream_connection_lost", message: "page 2 was lost")

    @Test("a stream cut after its first lines: the walk's own error line is refused, the shutdown's is the last, no last chunk")
    func streamEndsWithTheShutdownLine() async throws {
        let sink = MemoryResponseSink()
        let cut = Cut()
        let writer = writer(sink, cut: cut)
        try await writer.beginStream(.ok, headers: ["Content-Type": "application/x-ndjson"], holdingHead: true)
        try await writer.writeStreamed(Array("{\"id\":1}\n".utf8))
        cut.isCut = true
        // What the cancelled walk writes next (its failure line for the page it lost) must not leave.
        _ = await ResponseStream(writer: writer).fail(with: Self.upstreamLost, recording: RequestRecord())
        await writer.endCutByShutdown()
        await writer.endCutByShutdown()
        let raw = try RawResponseBytes(sink.bytes)
        #expect(raw.status == 200)
        #expect(!raw.isComplete, "no last chunk: the client sees an incomplete transfer")
        let lines = raw.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "the item, then one error line: \(lines)")
        #expect(lines.first == "{\"id\":1}")
        #expect(lines.last?.hasPrefix(StreamFailureLine.marker + "{\"error\":{\"code\":\"shutdown_cut\"") == true, "\(lines)")
        #expect(!raw.text.contains("upstream_connection_lost"))
        #expect(writer.isCutByShutdown)
        #expect(!writer.keepsAlive)
    }

    @Test("an answer not begun when cut: the responder's error is refused, the client gets 503 shutting_down with Retry-After")
    func answerNotBegunIsA503() async throws {
        let sink = MemoryResponseSink()
        let cut = Cut()
        let writer = writer(sink, cut: cut)
        cut.isCut = true
        _ = await Response(writer: writer).send(Self.upstreamLost, recording: RequestRecord())
        #expect(sink.bytes.isEmpty)
        await writer.endCutByShutdown()
        let raw = try RawResponseBytes(sink.bytes)
        #expect(raw.status == 503)
        #expect(raw.isComplete)
        #expect(raw.header("Retry-After") == "1")
        #expect(raw.header("Connection") == "close")
        #expect(raw.text.contains("\"code\":\"shutting_down\""), "\(raw.text)")
        #expect(writer.deliveredStatus == 503)
        #expect(writer.isCutByShutdown)
    }

    @Test("a stream whose head is still held when cut sent nothing: it becomes a 503, not a 200")
    func heldHeadIsDropped() async throws {
        let sink = MemoryResponseSink()
        let cut = Cut()
        let writer = writer(sink, cut: cut)
        try await writer.beginStream(.ok, headers: ["Content-Type": "application/x-ndjson"], holdingHead: true)
        cut.isCut = true
        ResponseStream(writer: writer).abort("client_left")
        await writer.endCutByShutdown()
        let raw = try RawResponseBytes(sink.bytes)
        #expect(raw.status == 503)
        #expect(raw.header("Retry-After") == "1")
        #expect(!raw.text.contains("200 OK"))
    }

    @Test("a stream that failed before the cut keeps its own error line, and gets no second one")
    func failedBeforeTheCutKeepsItsEnding() async throws {
        let sink = MemoryResponseSink()
        let cut = Cut()
        let writer = writer(sink, cut: cut)
        try await writer.beginStream(.ok, headers: ["Content-Type": "application/x-ndjson"])
        try await writer.writeStreamed(Array("{\"id\":1}\n".utf8))
        _ = await ResponseStream(writer: writer).fail(with: Self.upstreamLost, recording: RequestRecord())
        cut.isCut = true
        await writer.endCutByShutdown()
        let text = try RawResponseBytes(sink.bytes).text
        #expect(text.contains("upstream_connection_lost"))
        #expect(!text.contains("shutdown_cut"), "\(text)")
        #expect(!writer.isCutByShutdown)
    }

    @Test("an answer finished before the cut is left alone")
    func finishedAnswerIsLeftAlone() async throws {
        let sink = MemoryResponseSink()
        let cut = Cut()
        let writer = writer(sink, cut: cut)
        try await writer.send(.ok, headers: ["Content-Type": "application/json"], body: Array("[]".utf8))
        let before = sink.bytes
        cut.isCut = true
        await writer.endCutByShutdown()
        #expect(sink.bytes == before)
        #expect(!writer.isCutByShutdown)
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// PageProxy's responder over the mock upstream, both in this process and with no socket: a request goes in as a
/// head, the answer comes out as the bytes the client would have read, with the responder's `RequestRecord`.
struct InMemoryProxy {
    let responder: PageProxyResponder
    let mock: MockUpstream
    let metrics: Metrics

    /// A proxy with `routes` (their `mockPath`s on the mock), the page cache `cache` (none by default), and a memo of
    /// `memoBytes` over it (none by default).
    init(
        routes: [TestStack.Route] = SchemeRoutes.all, mockOptions: MockUpstreamOptions = SchemeRoutes.mockOptions, cache: DiskStore? = nil,
        clock: PageProxyClock = .system, spool: MergedSpool = MergedSpool(directories: [NSTemporaryDirectory()]),
        walksOnSocketLoop: Bool = false, answersOnePageOnSocketLoop: Bool = false, triesInMemoryAnswer: Bool = true, memoBytes: Int = 0
    ) {
        mock = MockUpstream(options: mockOptions)
        let configs = routes.map { route in
            var config = RouteConfig.makeForTests(name: route.name, upstream: "http://127.0.0.1:9\(route.mockPath)", pagination: route.scheme)
            config.itemsPath = route.items
            config.concurrency = route.concurrency
            config.maxPages = route.maxPages
            route.configure(&config)
            return config
        }
        metrics = Metrics()
        var aggregate = AggregateResponder(
            transport: InProcessMockTransport(mock: mock), pages: CachingPageSource(store: cache, clock: clock), metrics: metrics,
            spool: spool, memo: MergedAnswerMemo(maxBytes: memoBytes, store: memoBytes > 0 ? cache : nil, clock: clock),
            budgets: OriginBudgets(configs.map { ($0.upstream.origin, $0.originBudget) }))
        aggregate.triesInMemoryAnswer = triesInMemoryAnswer
        let status = ServiceStatus()
        status.markReady()
        responder = PageProxyResponder(
            router: Router(routes: configs), aggregate: aggregate, status: status, metrics: metrics, walksOnSocketLoop: walksOnSocketLoop,
            answersOnePageOnSocketLoop: answersOnePageOnSocketLoop)
    }

    /// What one request got: the raw bytes, read back by `RawResponseBytes`, and the responder's record.
    struct Answer {
        let response: RawResponseBytes
        let record: RequestRecord
        /// Whether the connection would stay open after this answer.
        let keepsAlive: Bool
        /// How many writes the answer took.
        var writes = 0
        /// How many of them sent slices of arrays the responder holds (a page's own bytes), uncopied.
        var sliceWrites = 0
    }

    /// Answers `target` in memory.
    func request(_ target: String, method: HTTPMethod = .get, headers: [(String, String)] = []) async throws -> Answer {
        let (head, sink, writer) = Self.exchange(target, method: method, headers: headers)
        let record = await responder.respond(to: head, response: Response(writer: writer))
        return Answer(
            response: try RawResponseBytes(sink.bytes, isHead: method == .head), record: record, keepsAlive: writer.keepsAlive,
            writes: sink.writes, sliceWrites: sink.sliceWrites)
    }

    /// Asks `respondFromMemory` (as a connection does on its socket loop) to answer `target`: its answer, told to the
    /// responder as the connection tells it; nil when it declined, having written nothing and left the response.
    func requestFromMemory(_ target: String, method: HTTPMethod = .get, headers: [(String, String)] = []) async throws -> Answer? {
        let (head, sink, writer) = Self.exchange(target, method: method, headers: headers)
        var response: Response? = Response(writer: writer)
        guard let record = await responder.respondFromMemory(to: head, response: &response) else {
            let kept = response != nil
            #expect(kept && sink.writes == 0, "a declined request keeps its response, and nothing is written")
            return nil
        }
        let taken = response == nil
        #expect(taken)
        responder.answered(record, status: writer.deliveredStatus, bytes: writer.bytesSent, duration: .zero)
        return Answer(
            response: try RawResponseBytes(sink.bytes, isHead: method == .head), record: record, keepsAlive: writer.keepsAlive,
            writes: sink.writes, sliceWrites: sink.sliceWrites)
    }

    /// Asks `respondPreferringMemory` (as a connection does on the pool) to answer `target`: its answer, told to the
    /// responder as the connection tells it, and whether it was one from memory.
    func requestPreferringMemory(
        _ target: String, method: HTTPMethod = .get, headers: [(String, String)] = []
    ) async throws -> (answer: Answer, fromMemory: Bool) {
        let (head, sink, writer) = Self.exchange(target, method: method, headers: headers)
        let answered = try #require(await responder.respondPreferringMemory(to: head, response: Response(writer: writer)))
        responder.answered(answered.record, status: writer.deliveredStatus, bytes: writer.bytesSent, duration: .zero)
        let answer = Answer(
            response: try RawResponseBytes(sink.bytes, isHead: method == .head), record: answered.record, keepsAlive: writer.keepsAlive,
            writes: sink.writes, sliceWrites: sink.sliceWrites)
        return (answer, answered.fromMemory)
    }

    private static func exchange(
        _ target: String, method: HTTPMethod, headers: [(String, String)]
    ) -> (HTTPRequestHead, MemoryResponseSink, ResponseWriter) {
        var fields = HTTPHeaders()
        fields.add("Host", "127.0.0.1")
        for (name, value) in headers { fields.add(name, value) }
        let head = HTTPRequestHead(method: method, target: target, version: .http1_1, headers: fields)
        let sink = MemoryResponseSink()
        return (head, sink, ResponseWriter(sink: sink, request: head, keepsAlive: true, writeTimeout: .seconds(5)))
    }
}

import Foundation
import PageProxyCore

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// PageProxy's responder over the mock upstream, both in this process and with no socket: a request goes in as a
/// head, the answer comes out as the bytes the client would have read, with the responder's `RequestRecord`.
struct InMemoryProxy {
    let responder: PageProxyResponder
    let mock: MockUpstream
    let metrics: Metrics

    /// A proxy with `routes` (their `mockPath`s on the mock), no page cache and no memo.
    init(routes: [TestStack.Route] = SchemeRoutes.all, mockOptions: MockUpstreamOptions = SchemeRoutes.mockOptions) {
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
        let aggregate = AggregateResponder(
            transport: InProcessMockTransport(mock: mock), pages: CachingPageSource(store: nil), metrics: metrics,
            spool: MergedSpool(directories: [NSTemporaryDirectory()]), memo: MergedAnswerMemo(maxBytes: 0, store: nil),
            budgets: OriginBudgets(configs.map { ($0.upstream.origin, $0.originBudget) }))
        let status = ServiceStatus()
        status.markReady()
        responder = PageProxyResponder(router: Router(routes: configs), aggregate: aggregate, status: status, metrics: metrics)
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
        var fields = HTTPHeaders()
        fields.add("Host", "127.0.0.1")
        for (name, value) in headers { fields.add(name, value) }
        let head = HTTPRequestHead(method: method, target: target, version: .http1_1, headers: fields)
        let sink = MemoryResponseSink()
        let writer = ResponseWriter(sink: sink, request: head, keepsAlive: true, writeTimeout: .seconds(5))
        let record = await responder.respond(to: head, response: Response(writer: writer))
        return Answer(
            response: try RawResponseBytes(sink.bytes, isHead: method == .head), record: record, keepsAlive: writer.keepsAlive,
            writes: sink.writes, sliceWrites: sink.sliceWrites)
    }
}

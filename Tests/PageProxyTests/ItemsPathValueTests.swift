import PageProxyCore
import Testing

@testable import PageProxy

/// What the route's `items` path may name on a page: an array (its items), `null` (a page with no items, as APIs
/// write an empty list), or anything else, missing included (an upstream that does not answer as the route says).
@Suite struct ItemsPathValueTests {
    /// An upstream that answers every path with one canned JSON page.
    private struct CannedUpstream: HTTPResponder {
        let pages: [String: String]

        func respond(to request: HTTPRequestHead, writer: ResponseWriter) async {
            var headers = HTTPHeaders()
            headers.set("Content-Type", "application/json")
            try? await writer.send(.ok, headers: headers, body: Array((pages[request.path] ?? "{}").utf8))
        }
    }

    private static let pages = [
        "/null": #"{"data":null,"next":null}"#,
        "/missing": #"{"items":[{"id":1}]}"#,
        "/object": #"{"data":{"id":1}}"#,
        "/string": #"{"data":"none"}"#,
    ]

    /// Starts the canned upstream and a proxy with one route per canned page (items at `data`), runs `body`.
    private static func run(_ body: (PageProxyApp) async throws -> Void) async throws {
        let upstream = try Server(
            address: SocketAddress(host: "127.0.0.1", port: 0), limits: ServerLimits(), responder: CannedUpstream(pages: pages),
            logger: Logger(level: .error))
        let routes = pages.keys.map { path in
            var route = RouteConfig.makeForTests(
                name: String(path.dropFirst()), upstream: "http://127.0.0.1:\(upstream.port)\(path)", pagination: .pageNumber(.init()))
            route.itemsPath = JSONPath("data")!
            return route
        }
        let app = try PageProxyApp.start(config: Config.makeForTests(routes: routes), logger: Logger(level: .error))
        do {
            try await body(app)
        } catch {
            Issue.record(error)
        }
        await app.stop(grace: .seconds(5))
        await upstream.stop(grace: .zero)
    }

    @Test("null at the items path is a page with no items: 200 and an empty array")
    func nullItemsAreAnEmptyPage() async throws {
        try await Self.run { app in
            let response = try await RawHTTPClient.connect(port: app.server.port).request("/null")
            #expect(response.status == 200)
            #expect(response.text == "[]")
            #expect(response.header("PageProxy-Items") == "0")
            #expect(response.header("PageProxy-Pages") == "1")
        }
    }

    @Test("a missing items path, or one that names an object or a string, is a 502 upstream_invalid_json", arguments: [
        ("/missing", "no items at path"), ("/object", "object"), ("/string", "string"),
    ])
    func missingOrNonArrayItemsAreA502(path: String, mention: String) async throws {
        try await Self.run { app in
            let response = try await RawHTTPClient.connect(port: app.server.port).request(path)
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_invalid_json\""))
            #expect(response.text.contains(mention), "\(response.text)")
        }
    }
}

import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The HTTP/1.1 server, spoken to over a real socket: keep-alive, pipelining, HEAD, errors and limits.
@Suite struct ServerTests {
    @Test func severalRequestsShareOneKeepAliveConnection() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            for total in [3, 25, 0] {
                let response = try await client.request("/github?mock_total=\(total)")
                #expect(response.status == 200)
                #expect(response.body == MockDataset.mergedJSON(total: total))
                #expect(response.header("Connection") == nil)
            }
            #expect(stack.app.server.openConnections == 1)
        }
    }

    @Test func threePipelinedRequestsAreAnsweredInOrder() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            let targets = ["/github?mock_total=7", "/healthz", "/plain?mock_total=12"]
            try await client.send(targets.map { RawHTTPClient.requestText($0) }.joined())
            let first = try await client.readResponse()
            let second = try await client.readResponse()
            let third = try await client.readResponse()
            #expect(first.body == MockDataset.mergedJSON(total: 7))
            #expect(second.text == "{\"status\":\"ok\"}\n")
            #expect(third.body == MockDataset.mergedJSON(total: 12))
        }
    }

    @Test func headHasTheHeadersOfGetAndNoBody() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            let get = try await client.request("/github?mock_total=25")
            let head = try await client.request("/github?mock_total=25", method: "HEAD")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Length") == String(get.body.count))
            #expect(head.header("PageProxy-Items") == "25")
            // The connection is still usable: no stray body bytes were sent after the HEAD answer.
            let after = try await client.request("/healthz")
            #expect(after.status == 200)
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            let response = try await client.request("/healthz", headers: ["Connection": "close"])
            #expect(response.header("Connection") == "close")
            #expect(await client.isClosedByServer())
        }
    }

    @Test func http10ClosesByDefaultAndStreamsWithoutChunks() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send("GET /github?mock_total=25&_format=ndjson HTTP/1.0\r\n\r\n")
            let raw = try await client.readUntilClose()
            let text = String(decoding: raw, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(!text.lowercased().contains("transfer-encoding"))
            let body = raw.bodyAfterHead
            #expect(body == MockDataset.ndjson(total: 25))
        }
    }

    @Test func unknownRouteIsA404WithAJSONBody() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/nope/items")
            #expect(response.status == 404)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            #expect(response.text.hasPrefix("{\"error\":{\"code\":\"unknown_route\""))
        }
    }

    @Test func otherMethodsAreA405WithAllow() async throws {
        try await TestStack.run { stack in
            let response = try await stack.client().request("/github", method: "POST", headers: ["Content-Length": "0"])
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD")
            #expect(response.text.contains("\"code\":\"method_not_allowed\""))
        }
    }

    @Test func malformedRequestIsA400WithAJSONBodyAndClose() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send("GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.header("Connection") == "close")
            #expect(response.text.hasPrefix("{\"error\":{\"code\":"))
            #expect(await client.isClosedByServer())
        }
    }

    @Test("an endless run of empty lines before a request is a 400 and a close, not a reader kept busy forever")
    func aFloodOfEmptyLinesIsA400() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            // A memo-answerable request first: the flood then arrives on the socket loop's reader.
            try await client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 200)
            try await client.send(String(repeating: "\r\n", count: 64 * 1024))
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"too_many_empty_lines\""))
            #expect(await client.isClosedByServer())
        }
    }

    @Test func oversizedRequestLineIsA414() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send("GET /" + String(repeating: "a", count: 10_000) + " HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 414)
            #expect(response.text.contains("\"code\":"))
        }
    }

    @Test func oversizedHeadersAreA431() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            var request = "GET /healthz HTTP/1.1\r\nHost: x\r\n"
            for index in 0..<100 { request += "X-Filler-\(index): " + String(repeating: "b", count: 500) + "\r\n" }
            try await client.send(request + "\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 431)
            #expect(response.text.contains("\"code\":"))
        }
    }

    @Test func ownEndpointsAnswer() async throws {
        try await TestStack.run { stack in
            #expect(try await stack.get("/healthz").status == 200)
            #expect(try await stack.get("/readyz").text == "{\"status\":\"ready\"}\n")
            let metrics = try await stack.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("# TYPE pageproxy_requests_total counter"))
        }
    }

    @Test("a client that disconnects mid-stream does not disturb another client")
    func disconnectMidStreamLeavesOthersAlone() async throws {
        var options = SchemeRoutes.mockOptions
        options.latency = .milliseconds(5)
        try await TestStack.run(mockOptions: options) { stack in
            let leaving = try await stack.client()
            try await leaving.send(RawHTTPClient.requestText("/github?mock_total=2000&_format=ndjson"))
            _ = try await leaving.readUntil("\n{")
            leaving.socket.close()
            let staying = try await stack.client()
            let response = try await staying.request("/github?mock_total=250&_format=ndjson")
            #expect(response.status == 200)
            #expect(response.body == MockDataset.ndjson(total: 250))
        }
    }
}

/// A route's extra path is appended to its upstream base path: nothing in it may climb out of that base.
extension ServerTests {
    @Test("a path that could climb out of the route's base path is a 400 and reaches no upstream", arguments: [
        "/github/../admin", "/github/./x", "/github/%2e%2e/admin", "/github/..%2f..%2fadmin", "/github/a%2Fb",
        "/github/..%5cadmin", "/github/a%00b",
        // Issue 14: a decoding that fails, `..;` (Tomcat's `..`), overlong UTF-8, double encoding, a control.
        "/github/..%2f..%2fetc%2fpasswd%ff", "/github/%2e%2e%ff", "/github/a%5c..%5c..%5cetc%ff", "/github/..%00%ff",
        "/github/..;/admin", "/github/%c0%ae%c0%ae/admin", "/github/%252e%252e/admin", "/github/a%0ab",
    ])
    func climbingPathIsRefused(path: String) async throws {
        try await TestStack.run { stack in
            let response = try await stack.get(path)
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"invalid_path\""))
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("an ordinary extra path passes through to the upstream")
    func ordinarySubpathPassesThrough() async throws {
        try await TestStack.run { stack in
            _ = try await stack.get("/github/sub%20dir/x")
            #expect(stack.mock.log.requests.first?.target.hasPrefix("/github/items/sub%20dir/x") == true)
        }
    }

    /// contract22 F3: DESIGN.md's query parameters "pass through untouched"; a bare `f` went upstream as `f=`.
    @Test("a query parameter without a value reaches the upstream without one, on every page")
    func aBareQueryParameterStaysBare() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/plain?z=1&f&e=&mock_total=45")
            #expect(answer.status == 200)
            let targets = stack.mock.log.requests.map(\.target)
            #expect(targets.count == 5)  // pages of 10, the last short
            for target in targets {
                #expect(target.contains("?z=1&f&e=&mock_total=45&"), "\(target)")
            }
        }
    }

    /// attack16 U1: `OPTIONS *` was a 405; RFC 9110 §9.3.7 lets it ask what the server can do.
    @Test("OPTIONS * and OPTIONS on a route are a 200 with Allow: GET, HEAD and no body; the connection stays usable")
    func optionsIsA200WithAllow() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
            let server = try await client.readResponse()
            #expect(server.status == 200)
            #expect(server.header("Allow") == "GET, HEAD")
            #expect(server.header("Content-Length") == "0")
            try await client.send("OPTIONS /github HTTP/1.1\r\nHost: x\r\n\r\n")
            let route = try await client.readResponse()
            #expect(route.status == 200)
            #expect(route.header("Allow") == "GET, HEAD")
            #expect(route.body.isEmpty)
            #expect(stack.mock.log.count == 0)
        }
    }
}

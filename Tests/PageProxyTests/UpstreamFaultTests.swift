import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A hostile or broken upstream gets a clear JSON error with the details, never a crash or garbage.
@Suite struct UpstreamFaultTests {
    @Test func permanent500OnPageKIsA502NamingThePage() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/github?mock_total=100&mock_fault=status500@4")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_status\""))
            #expect(response.text.contains("\"route\":\"github\""))
            #expect(response.text.contains("\"page\":4"))
            #expect(response.text.contains("\"upstream_status\":500"))
            #expect(response.text.contains("\"upstream_url\":\"http://127.0.0.1:\(stack.mockPort)/repositories/1/items?"))
        }
    }

    @Test func malformedJSONOnPageKIsA502() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/slack?mock_total=100&mock_fault=malformed@2")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_invalid_json\""))
            #expect(response.text.contains("\"page\":2"))
            #expect(stack.mock.log.count == 2)
        }
    }

    @Test func nextLinkThatLoopsBackIsA502() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/jsonapi?mock_total=100&mock_fault=loop@3")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"pagination_loop\""))
            // Page 3 links to page 1 spelled with explicit parameters (a new URL, fetched as page 4), whose next
            // link is page 2's URL again: the walk stops there, before requesting it a second time.
            #expect(stack.mock.log.count == 4)
        }
    }

    @Test("a numbered walk (GitHub's rel=\"last\") still refuses a foreign next link on a later page")
    func foreignLaterLinkInANumberedWalkIsA502() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/github?mock_total=100&mock_fault=foreign@2")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"foreign_next_link\""))
            #expect(response.text.contains("\"page\":2"))
        }
    }

    @Test("a cross-origin next link sends zero requests to the other origin")
    func foreignNextLinkIsRefusedWithoutARequest() async throws {
        try await TestStack.run { stack in
            // A second listener at the origin the link names, counting what reaches it.
            let other = MockUpstream(options: SchemeRoutes.mockOptions)
            let otherServer = try Server(
                address: SocketAddress(host: "127.0.0.2", port: stack.mockPort), limits: ServerLimits(),
                responder: MockHTTPResponder(mock: other), logger: Logger(level: .error))
            let response = try await stack.get("/drf-pages?mock_total=100&mock_fault=foreign@2")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"foreign_next_link\""))
            #expect(response.text.contains("\"refused_origin\":\"http://127.0.0.2:\(stack.mockPort)\""))
            #expect(stack.mock.log.count == 2)
            #expect(other.log.count == 0)
            #expect(otherServer.acceptedConnections == 0)
            await otherServer.stop(grace: .zero)
        }
    }

    @Test func unreachableUpstreamIsA502() async throws {
        var route = SchemeRoutes.all[2]
        route.name = "down"
        route.configure = { config in
            config.upstream = UpstreamURL(text: "http://127.0.0.1:1/x", scheme: "http", host: "127.0.0.1", port: 1, path: "/x", query: nil)
        }
        try await TestStack.run(routes: [route]) { stack in
            let response = try await stack.get("/down")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_unreachable\""))
        }
    }

    /// Five pages, and one retry of each page that failed once: a 500, and (review24 P16) a 408 and a CDN's 522.
    @Test("a transient 500, 408 or 522 on a later page is retried and the answer is whole",
          arguments: [("transient500@3", 6), ("transient408@2,transient522@4", 7)])
    func transientFailureIsRetried(faults: String, requests: Int) async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/github?mock_total=50&mock_fault=\(faults)")
            #expect(response.status == 200)
            #expect(response.body == MockDataset.mergedJSON(total: 50))
            #expect(stack.mock.log.count == requests)
        }
    }

    @Test("a 501 says the upstream will never do it: not retried, a 502 naming it")
    func status501IsNotRetried() async throws {
        try await TestStack.run { stack in
            // A cursor walk: one page at a time, so nothing is asked past page 2.
            let response = try await stack.get("/slack?mock_total=100&mock_fault=status501@2")
            #expect(response.status == 502)
            #expect(response.text.contains("\"upstream_status\":501"))
            // Page 1, then page 2 once.
            #expect(stack.mock.log.count == 2)
        }
    }

    @Test("a 429 with Retry-After is waited out and retried")
    func status429IsWaitedOut() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/slack?mock_total=30&mock_fault=status429@2")
            #expect(response.status == 200)
            #expect(response.body == MockDataset.mergedJSON(total: 30))
            #expect(stack.mock.log.count == 4)
        }
    }

    @Test("a permanent 500 uses the retry budget and no more")
    func permanent500StopsAtTheBudget() async throws {
        var route = SchemeRoutes.all[8]
        route.configure = { $0.retries = 2 }
        try await TestStack.run(routes: [route]) { stack in
            let response = try await stack.get("/slack?mock_total=100&mock_fault=status500@2")
            #expect(response.status == 502)
            #expect(response.text.contains("\"upstream_status\":500"))
            // Page 1, then page 2 three times (one try and two retries).
            #expect(stack.mock.log.count == 4)
        }
    }

    @Test("a page that stalls past the page timeout is a 504")
    func stalledPageIsA504() async throws {
        var route = SchemeRoutes.all[8]
        route.configure = { config in
            // Page 1 must beat this on a loaded 2-core machine while every other suite runs (1 s once did not).
            config.pageTimeout = .seconds(3)
            config.retries = 0
        }
        try await TestStack.run(routes: [route]) { stack in
            let response = try await stack.get("/slack?mock_total=100&mock_fault=stall@2")
            #expect(response.status == 504)
            #expect(response.text.contains("\"code\":\"upstream_timeout\""))
            #expect(response.text.contains("\"page\":2"))
            #expect(stack.mock.log.count == 2)
        }
    }

    @Test("a connection reset in the middle of a body is retried, then a 502")
    func resetMidBodyIsA502() async throws {
        var route = SchemeRoutes.all[8]
        route.configure = { $0.retries = 1 }
        try await TestStack.run(routes: [route]) { stack in
            let response = try await stack.get("/slack?mock_total=100&mock_fault=reset@2")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_connection_lost\""))
            #expect(stack.mock.log.count == 3)
        }
    }

    @Test("the total deadline ends a walk with a 504")
    func totalDeadlineIsA504() async throws {
        var route = SchemeRoutes.all[8]
        route.configure = { $0.totalTimeout = .seconds(1) }
        var options = SchemeRoutes.mockOptions
        options.latency = .milliseconds(200)
        try await TestStack.run(routes: [route], mockOptions: options) { stack in
            let response = try await stack.get("/slack?mock_total=1000")
            #expect(response.status == 504)
            #expect(response.text.contains("\"code\":\"upstream_timeout\""))
            #expect(stack.mock.log.count < 100)
        }
    }
}

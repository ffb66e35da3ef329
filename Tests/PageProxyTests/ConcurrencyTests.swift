import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// DESIGN.md: pages known ahead are fetched up to the route's concurrency at once — proven from the mock's own
/// record, never from timing — and connections are reused.
@Suite struct ConcurrencyTests {
    private static func route(concurrency: Int) -> TestStack.Route {
        var github = PaginationScheme.LinkHeader()
        github.pageSize = 10
        return TestStack.Route(name: "github", mockPath: "/github/items", scheme: .linkHeader(github), concurrency: concurrency)
    }

    @Test("with a known total, up to the route's concurrency requests are in flight, never more", arguments: [1, 4, 8])
    func knownTotalFansOutToConcurrency(concurrency: Int) async throws {
        var options = SchemeRoutes.mockOptions
        // The mock answers nothing until `concurrency` requests are in flight at once (or 10 s have passed: then the
        // stack records an issue naming the hold): the peak is proven from the record, whatever the machine's load.
        options.holdUntilInFlight = concurrency
        options.latency = .milliseconds(10)
        try await TestStack.run(routes: [Self.route(concurrency: concurrency)], mockOptions: options) { stack in
            let response = try await stack.get("/github?mock_total=200")
            #expect(response.body == MockDataset.mergedJSON(total: 200))
            #expect(stack.mock.log.count == 20)
            #expect(stack.mock.log.peakInFlight == concurrency)
            // Keep-alive reuse: 20 pages over no more connections than the concurrency.
            #expect(stack.mockServer.acceptedConnections <= concurrency)
        }
    }

    @Test("with lookahead, a Link-header walk asks for the first pages together; once it has seen GitHub's links on another path, every guess is used")
    func linkHeaderLookaheadFetchesTheFirstRoundAtOnce() async throws {
        var options = SchemeRoutes.mockOptions
        // Nothing is answered until 8 requests are in flight, the first included: only speculation gets there.
        options.holdUntilInFlight = 8
        options.holdsFirstRequest = true
        var github = PaginationScheme.LinkHeader()
        github.pageSize = 10
        github.lookahead = 7
        // The origin budget sends a process's first request to an origin alone, to learn its rate limit before
        // spending more (README "One rate-limit budget per origin"): this test is about lookahead, so it is off.
        let route = TestStack.Route(name: "github", mockPath: "/github/items", scheme: .linkHeader(github), concurrency: 8) { route in
            route.originBudget.followsUpstreamSignals = false
        }
        try await TestStack.run(routes: [route], mockOptions: options) { stack in
            // The first walk guesses on the path it asked for; the mock's links (like GitHub's) name another one,
            // so those seven guesses are wasted once, and the walk learns where the links point.
            let first = try await stack.get("/github?mock_total=100")
            #expect(first.body == MockDataset.mergedJSON(total: 100))
            #expect(stack.mock.log.peakInFlight == 8)
            #expect(stack.mock.log.count == 10 + 7)
            stack.mock.log.reset()
            let response = try await stack.get("/github?mock_total=100")
            let whole = response.body == MockDataset.mergedJSON(total: 100)
            #expect(whole, "the merged answer equals the ground truth")
            // Ten pages, ten requests: the seven guesses matched the pages the `last` link named.
            #expect(stack.mock.log.count == 10)
            // All but the first page were asked for on the links' path (the requests arrive in any order).
            #expect(stack.mock.log.requests.filter { $0.target.hasPrefix(MockService.githubLinkPath) }.count == 9)
        }
    }

    @Test func nextLinkOnlySchemesFetchOneAtATime() async throws {
        var options = SchemeRoutes.mockOptions
        options.latency = .milliseconds(10)
        try await TestStack.run(mockOptions: options) { stack in
            let response = try await stack.get("/slack?mock_total=100")
            #expect(response.body == MockDataset.mergedJSON(total: 100))
            #expect(stack.mock.log.peakInFlight == 1)
            #expect(stack.mockServer.acceptedConnections == 1)
        }
    }
}

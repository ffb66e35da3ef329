import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Issue 13: a request that joins another route's fetch of the same page keeps its own page timeout. The shared try
/// lives until the last request waiting for it gives up, each at its own page timeout: a joiner whose route allows the
/// page longer is served by the one upstream request, where before the try was cut at the starter's page timeout and
/// the joiner asked the upstream again.
@Suite struct CollapsedPageTimeoutTests {
    @Test("a /long request joining a /short one's fetch of a slow page: /short gives up at its page time, /long is served, one upstream request")
    func aJoinerWithALongerPageTimeoutIsServedByTheSharedTry() async throws {
        // Page times far longer than any step of the test takes, even on a loaded machine: /short's ends when the
        // test moves the stack's clock past it, after /long has joined (a real 2 s raced /long's arrival).
        var short = SchemeRoutes.all[2]
        short.name = "short"
        short.configure = { route in
            route.pageTimeout = .seconds(60)
            route.retries = 0
        }
        var long = SchemeRoutes.all[2]
        long.name = "long"
        long.configure = { route in route.pageTimeout = .seconds(600) }
        // The upstream holds its answer until the test lets it go.
        let upstream = MockReleaseGate()
        var mockOptions = SchemeRoutes.mockOptions
        mockOptions.releaseGate = upstream
        let clock = AdvancingClock()
        let query = "?mock_total=5"
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-flight-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cache = CacheConfig(directory: root, maxBytes: 64 << 20)
        try await TestStack.run(routes: [short, long], mockOptions: mockOptions, configure: { $0.cache = cache }, clock: clock.clock) { stack in
            async let first = stack.get("/short" + query)
            try await poll("/short's request reaches the upstream") { upstream.waiting == 1 }
            async let joined = stack.get("/long" + query)
            try await poll("/long joins /short's fetch") { await stack.app.pages.waiterCount() == 2 }
            // /short's page time ends: it gives up, and the fetch goes on for /long.
            clock.advance(by: .seconds(61))
            #expect(try await first.status == 504)
            upstream.open()
            let served = try await joined
            #expect(served.status == 200)
            #expect(served.body == MockDataset.mergedJSON(total: 5))
            #expect(served.header("PageProxy-Cache") == "hits=0 misses=1 revalidated=0 stale=0 bypassed=0")
            #expect(stack.mock.log.count == 1, "one upstream request for both")
        }
    }
}

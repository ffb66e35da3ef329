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
    @Test("a /long request joining a /short one's fetch of a slow page: /short gives up at its 2 s, /long is served, one upstream request")
    func aJoinerWithALongerPageTimeoutIsServedByTheSharedTry() async throws {
        var short = SchemeRoutes.all[2]
        short.name = "short"
        short.configure = { route in
            route.pageTimeout = .seconds(2)
            route.retries = 0
        }
        var long = SchemeRoutes.all[2]
        long.name = "long"
        long.configure = { route in route.pageTimeout = .seconds(8) }
        // One page, answered after 3 s: longer than /short's page timeout, well within /long's.
        let query = "?mock_total=5&mock_latency_ms=3000"
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-flight-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let cache = CacheConfig(directory: root, maxBytes: 64 << 20)
        try await TestStack.run(routes: [short, long], mockOptions: SchemeRoutes.mockOptions, configure: { $0.cache = cache }) { stack in
            async let first = stack.get("/short" + query)
            // /long asks once /short's request has reached the upstream: it joins that fetch.
            var asked = false
            for _ in 0..<2_000 where !asked {
                asked = stack.mock.log.count == 1
                if !asked { try await Task.sleep(for: .milliseconds(1)) }
            }
            #expect(asked)
            let joined = try await stack.get("/long" + query)
            #expect(joined.status == 200)
            #expect(joined.body == MockDataset.mergedJSON(total: 5))
            #expect(joined.header("PageProxy-Cache") == "hits=0 misses=1 revalidated=0 stale=0 bypassed=0")
            #expect(try await first.status == 504)
            #expect(stack.mock.log.count == 1, "one upstream request for both")
        }
    }
}

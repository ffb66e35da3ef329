import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Issue 14: the longest `Retry-After` a route waits out is its `maxRetryAfterSeconds` (30 by default).
@Suite struct RetryAfterCapTests {
    @Test("a Retry-After longer than the route's maxRetryAfterSeconds is not waited out: the upstream's answer stands")
    func retryAfterPastTheCapIsNotWaited() async throws {
        var route = SchemeRoutes.all[8]
        #expect(route.name == "slack")
        route.configure = { $0.maxRetryAfter = .zero }
        try await TestStack.run(routes: [route]) { stack in
            // The mock's 429 asks for `Retry-After: 1`; the default cap (see UpstreamFaultTests) waits it out.
            let response = try await stack.get("/slack?mock_total=30&mock_fault=status429@2")
            #expect(response.status == 502)
            #expect(response.text.contains("\"upstream_status\":429"))
            #expect(stack.mock.log.count == 2)
        }
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// attack13 U1: an upstream's 5xx is a 5xx whatever the size of its error page. One larger than the route's
/// `maxPageBytes` was `upstream_page_too_large` and never retried; now its first bytes are kept, the rest is not read
/// (the connection is dropped), and the status is retried and reported as any 503.
@Suite struct LargeErrorPageTests {
    private static func route(retries: Int) -> TestStack.Route {
        var route = SchemeRoutes.all[8]
        route.configure = { config in
            config.retries = retries
            config.maxPageBytes = 64 * 1024
        }
        return route
    }

    @Test("a 503 with a 2 MiB body on page 2 is retried, and the answer is whole")
    func largeTransient503IsRetried() async throws {
        try await TestStack.run(routes: [Self.route(retries: 1)]) { stack in
            let response = try await stack.get("/slack?mock_total=30&mock_fault=big503@2")
            #expect(response.status == 200, "\(response.text.prefix(300))")
            #expect(response.body == MockDataset.mergedJSON(total: 30))
            // Three pages and one retry of page 2.
            #expect(stack.mock.log.count == 4)
        }
    }

    @Test("without retries the 503 is named as the upstream's status, not as a page over the limit")
    func largeErrorPageIsNamedByItsStatus() async throws {
        try await TestStack.run(routes: [Self.route(retries: 0)]) { stack in
            let response = try await stack.get("/slack?mock_total=30&mock_fault=big503@2")
            #expect(response.status == 502)
            #expect(response.text.contains("\"upstream_status\":503"), "\(response.text.prefix(300))")
            #expect(!response.text.contains("upstream_page_too_large"))
        }
    }
}

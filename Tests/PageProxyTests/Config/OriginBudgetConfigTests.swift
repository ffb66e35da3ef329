import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `routes[].originBudget`: the limits of the budget shared by every request to the route's origin.
@Suite struct OriginBudgetConfigTests {
    @Test func byDefaultTheUpstreamsRateLimitFieldsAreFollowed() throws {
        let route = try ConfigFixture.route(extra: "")
        #expect(route.originBudget == OriginBudget.Configuration(maxConcurrent: nil, requestsPerSecond: nil, followsUpstreamSignals: true))
    }

    @Test func limitsAreRead() throws {
        let route = try ConfigFixture.route(
            extra: #""originBudget": { "maxConcurrent": 8, "requestsPerSecond": 2.5, "followRateLimitHeaders": false }"#)
        #expect(route.originBudget == OriginBudget.Configuration(maxConcurrent: 8, requestsPerSecond: 2.5, followsUpstreamSignals: false))
        let integer = try ConfigFixture.route(extra: #""originBudget": { "requestsPerSecond": 10, "maxConcurrent": null }"#)
        #expect(integer.originBudget.requestsPerSecond == 10)
        #expect(integer.originBudget.maxConcurrent == nil)
    }

    @Test func badLimitsNameTheirField() {
        func expect(_ budget: String, field: String, mentions: [String]) {
            ConfigFixture.expectError(
                ConfigFixture.document(routes: [ConfigFixture.route(extra: #""originBudget": \#(budget)"#)]), field: field, mentions: mentions)
        }
        expect(#"{ "maxConcurrent": 0 }"#, field: "routes[0].originBudget.maxConcurrent", mentions: ["1"])
        expect(#"{ "requestsPerSecond": 0 }"#, field: "routes[0].originBudget.requestsPerSecond", mentions: ["0.001"])
        expect(#"{ "requestsPerSecond": "5" }"#, field: "routes[0].originBudget.requestsPerSecond", mentions: ["expected a number"])
        expect(#"{ "followRateLimitHeaders": 1 }"#, field: "routes[0].originBudget.followRateLimitHeaders", mentions: ["true or false"])
        expect(#"{ "maxConcurent": 4 }"#, field: "routes[0].originBudget.maxConcurent", mentions: ["maxConcurrent"])
        expect("7", field: "routes[0].originBudget", mentions: ["object"])
    }
}

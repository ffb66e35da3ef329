import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// One rate-limit budget per upstream origin, end to end against the mock's rate-limited mode (issue 17).
@Suite(.serialized) struct OriginBudgetEndToEndTests {
    /// What 16 concurrent clients got, and what the mock saw.
    struct Run {
        var statuses: [Int]
        var rejected: Int
        var peakPerWindow: Int
        var upstreamRequests: Int
        var metrics: PrometheusTextParser
        var origin: String
    }

    /// 16 clients at once walk 2 pages each (32 requests) through one route with one token, against a mock that
    /// allows `limit` per second.
    static func walk(limit: Int, followRateLimitHeaders: Bool) async throws -> Run {
        var options = MockUpstreamOptions(totalItems: 40, pageSize: 20)
        options.rateLimit = MockRateLimiter.Limit(requests: limit, windowSeconds: 1)
        var scheme = PaginationScheme.LinkHeader()
        scheme.pageSize = 20
        let route = TestStack.Route(name: "limited", mockPath: "/github/items", scheme: .linkHeader(scheme)) { route in
            // No cache: every walk asks the upstream, so the clients compete for its limit.
            route.ttl = .zero
            route.headers = [(name: "Authorization", value: "Bearer one-token")]
            route.originBudget.followsUpstreamSignals = followRateLimitHeaders
        }
        return try await TestStack.run(routes: [route], mockOptions: options) { stack in
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                // Each client its own list (a parameter the mock ignores): identical walks would share each page's
                // one fetch, even uncached.
                for client in 0..<16 { group.addTask { try await stack.get("/limited?client=\(client)").status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let metrics = try PrometheusTextParser(try await stack.get("/metrics").text)
            return Run(
                statuses: statuses, rejected: stack.mock.rateLimiter.rejectedCount,
                peakPerWindow: stack.mock.rateLimiter.peakArrivalsPerWindow, upstreamRequests: stack.mock.log.count,
                metrics: metrics, origin: "http://127.0.0.1:\(stack.mockPort)")
        }
    }

    /// A route of 20 items a page, uncached, with a total timeout of 2 s, and a mock that allows one request a minute.
    /// Its clock stands still at the start of the next minute, so its window always ends a whole minute later (in the
    /// relative fields, and 60-120 s from now in X-RateLimit-Reset): never within the deadline, whenever the test runs.
    /// On the wall clock, a window that happened to end a second later would let the walk wait instead.
    static func oneRequestAMinute(
        name: String, totalItems: Int, configure: @escaping @Sendable (inout RouteConfig) -> Void = { _ in }
    ) -> (TestStack.Route, MockUpstreamOptions) {
        var options = MockUpstreamOptions(totalItems: totalItems, pageSize: 20)
        options.rateLimit = MockRateLimiter.Limit(requests: 1, windowSeconds: 60)
        let nextMinute = ((Date().timeIntervalSince1970 / 60).rounded(.down) + 1) * 60
        options.clock = .wall { Date(timeIntervalSince1970: nextMinute) }
        var scheme = PaginationScheme.LinkHeader()
        scheme.pageSize = 20
        let route = TestStack.Route(name: name, mockPath: "/github/items", scheme: .linkHeader(scheme)) { route in
            route.ttl = .zero
            route.totalTimeout = .seconds(2)
            configure(&route)
        }
        return (route, options)
    }

    @Test("16 clients walking a rate-limited upstream: no 429 reaches it or them, it sees no more than its limit")
    func sharedBudgetKeepsEveryWalkUnderTheLimit() async throws {
        let run = try await Self.walk(limit: 10, followRateLimitHeaders: true)
        #expect(run.statuses == Array(repeating: 200, count: 16))
        #expect(run.rejected == 0)
        #expect(run.peakPerWindow <= 10)
        #expect(run.upstreamRequests == 32)
        // Some walks had to wait for the next window: 32 requests at 10 per second.
        #expect((run.metrics.value("pageproxy_upstream_budget_waits_total", ["origin": run.origin]) ?? 0) > 0)
        #expect(run.metrics.value("pageproxy_upstream_rate_limited_total", ["origin": run.origin]) == 0)
        print("origin budget on: 16 clients, 32 page requests at 10/s: \(run.rejected) upstream 429s, peak \(run.peakPerWindow) per window")
    }

    @Test("without the shared budget the same walks spend requests on 429s")
    func withoutTheBudgetTheUpstreamRefuses() async throws {
        let run = try await Self.walk(limit: 10, followRateLimitHeaders: false)
        // The 16 first pages alone pass the limit of 10 in whatever second they arrive.
        #expect(run.rejected > 0)
        #expect(run.peakPerWindow > 10)
        #expect(run.metrics.value("pageproxy_upstream_budget_waits_total", ["origin": run.origin]) == nil)
        let refused = run.statuses.filter { $0 != 200 }.count
        print("origin budget off: \(run.rejected) upstream 429s, \(run.upstreamRequests) upstream requests, peak \(run.peakPerWindow) per window, \(refused) of 16 clients not answered 200")
    }

    @Test("a walk whose wait for the budget would pass its deadline fails at once, without spending a request")
    func aWaitPastTheDeadlineIsA503WithRetryAfter() async throws {
        let (route, options) = Self.oneRequestAMinute(name: "limited", totalItems: 40)
        try await TestStack.run(routes: [route], mockOptions: options) { stack in
            let response = try await stack.get("/limited")
            #expect(response.status == 503)
            #expect(response.text.contains(#""code":"upstream_rate_limited""#))
            let retryAfter = try #require(response.header("Retry-After").flatMap { Int($0) })
            #expect((1...121).contains(retryAfter))  // the later of the relative (60 s) and absolute (60-120 s) resets
            // Page 1 only: page 2 was never sent to learn what page 1's answer already said.
            #expect(stack.mock.log.count == 1)
            #expect(stack.mock.rateLimiter.rejectedCount == 0)
            let metrics = try PrometheusTextParser(try await stack.get("/metrics").text)
            #expect(metrics.value("pageproxy_upstream_budget_refusals_total", ["origin": "http://127.0.0.1:\(stack.mockPort)"]) == 1)
        }
    }

    @Test("requests signed anew each time (RFC 9421) by one key share its allowance: the second is held, not sent (loose13)")
    func messageSignaturesByOneKeyShareAnAllowance() async throws {
        let (route, options) = Self.oneRequestAMinute(name: "signed", totalItems: 10) { $0.forwardHeaders = ["Signature", "Signature-Input"] }
        func signed(_ created: Int) -> [String: String] {
            ["Signature-Input": #"sig1=("@method" "@target-uri");created=\#(created);keyid="key-1";nonce="n\#(created)""#,
             "Signature": "sig1=:c2lnbmF0dXJl\(created)=:"]
        }
        try await TestStack.run(routes: [route], mockOptions: options) { stack in
            #expect(try await stack.get("/signed", headers: signed(1)).status == 200)
            let second = try await stack.get("/signed", headers: signed(2))
            #expect(second.status == 503)
            #expect(second.text.contains(#""code":"upstream_rate_limited""#))
            // The first answer said the key's allowance is spent: the second signature is the same key's, not sent.
            #expect(stack.mock.log.count == 1)
            #expect(stack.mock.rateLimiter.rejectedCount == 0)
        }
    }
}

import Foundation
import PageProxyCore
import Synchronization
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// The mock's rate-limited mode: 429 past N requests per token and window, with GitHub's and the IETF draft's fields.
@Suite struct MockRateLimitTests {
    static func mock(limit: Int, window: Int = 1, clock: ManualWallClock) -> MockUpstream {
        var options = MockUpstreamOptions()
        options.rateLimit = MockRateLimiter.Limit(requests: limit, windowSeconds: window)
        options.clock = clock.clock
        return MockUpstream(options: options)
    }

    static func send(_ mock: MockUpstream, token: String?, target: String = "/github/items") async -> MockResponse {
        var headers: [(name: String, value: String)] = [(name: "Host", value: MockTestSupport.host)]
        if let token { headers.append((name: "Authorization", value: token)) }
        return await mock.respond(to: MockRequest(target: target, headers: headers))
    }

    @Test func answers429PastTheLimitWithGitHubsAndTheIETFFields() async {
        let clock = ManualWallClock()
        let mock = Self.mock(limit: 3, clock: clock)
        var remaining: [String?] = []
        for _ in 0..<3 {
            let response = await Self.send(mock, token: "Bearer a")
            #expect(response.status == 200)
            remaining.append(response.header("X-RateLimit-Remaining"))
        }
        #expect(remaining == ["2", "1", "0"])
        let refused = await Self.send(mock, token: "Bearer a")
        #expect(refused.status == 429)
        #expect(MockTestSupport.text(refused).contains("API rate limit exceeded"))
        #expect(refused.header("X-RateLimit-Limit") == "3")
        #expect(refused.header("X-RateLimit-Remaining") == "0")
        #expect(refused.header("X-RateLimit-Used") == "3")
        // The window is the second 1_700_000_000; it resets at the next one, 0.75 s away, rounded up.
        #expect(refused.header("X-RateLimit-Reset") == "1700000001")
        #expect(refused.header("Retry-After") == "1")
        #expect(refused.header("RateLimit-Policy") == #""default";q=3;w=1"#)
        #expect(refused.header("RateLimit") == #""default";r=0;t=1"#)
        #expect(mock.rateLimiter.rejectedCount == 1)
        #expect(mock.rateLimiter.peakArrivalsPerWindow == 4)
    }

    @Test func eachTokenHasItsOwnLimit() async {
        let clock = ManualWallClock()
        let mock = Self.mock(limit: 1, clock: clock)
        #expect(await Self.send(mock, token: "Bearer a").status == 200)
        #expect(await Self.send(mock, token: "Bearer b").status == 200)
        #expect(await Self.send(mock, token: nil).status == 200)
        #expect(await Self.send(mock, token: "Bearer a").status == 429)
        #expect(mock.rateLimiter.rejectedCount == 1)
    }

    @Test func theNextWindowServesAgain() async {
        let clock = ManualWallClock()
        let mock = Self.mock(limit: 2, window: 10, clock: clock)
        #expect(await Self.send(mock, token: "t").status == 200)
        #expect(await Self.send(mock, token: "t").status == 200)
        let refused = await Self.send(mock, token: "t")
        #expect(refused.status == 429)
        // The clock is at 1_700_000_000.25, in the 10-second window [1_700_000_000, 1_700_000_010).
        #expect(refused.header("X-RateLimit-Reset") == "1700000010")
        #expect(refused.header("Retry-After") == "10")
        #expect(refused.header("RateLimit-Policy") == #""default";q=2;w=10"#)
        clock.advance(seconds: 9.75)
        let served = await Self.send(mock, token: "t")
        #expect(served.status == 200)
        #expect(served.header("X-RateLimit-Remaining") == "1")
        #expect(served.header("RateLimit") == #""default";r=1;t=10"#)
    }

    @Test func theQueryAsksForALimitPerSecond() async {
        let mock = MockUpstream()
        let target = "/github/items?mock_rate_limit=1"
        let first = await Self.send(mock, token: nil, target: target)
        #expect(first.status == 200)
        #expect(first.header("X-RateLimit-Limit") == "1")
        // Without the option, no limit and no rate-limit fields.
        let plain = await Self.send(mock, token: nil)
        #expect(plain.header("X-RateLimit-Limit") == nil)
        for bad in ["0", "x", "-1"] {
            let response = await Self.send(mock, token: nil, target: "/github/items?mock_rate_limit=\(bad)")
            #expect(response.status == 400, "\(bad)")
        }
    }
}

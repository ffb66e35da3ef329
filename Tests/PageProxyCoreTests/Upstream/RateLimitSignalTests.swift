import Foundation
import Testing

@testable import PageProxyCore

/// Reading an upstream's rate-limit fields: GitHub's, the IETF draft's (structured fields), and `Retry-After`.
@Suite struct RateLimitSignalTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func signal(_ status: Int, _ fields: [(String, String)]) -> RateLimitSignal {
        RateLimitSignal(status: status, headers: HTTPHeaders(fields), now: now)
    }

    @Test func readsGitHubsFields() {
        let signal = Self.signal(200, [
            ("X-RateLimit-Limit", "5000"), ("X-RateLimit-Remaining", "4998"), ("X-RateLimit-Reset", "1700000030.5"),
            ("X-RateLimit-Used", "2"),
        ])
        #expect(signal == RateLimitSignal(limit: 5000, remaining: 4998, resetIn: .milliseconds(30_500)))
    }

    @Test("a reset in epoch milliseconds is read as such, not as a century away (attack11 H1)")
    func aResetInMillisecondsIsMilliseconds() {
        let signal = Self.signal(200, [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1700000030000")])
        #expect(signal.resetIn == .seconds(30))
    }

    @Test func readsTheIETFFieldsAndTakesTheClosestLimit() {
        let signal = Self.signal(200, [
            ("RateLimit-Policy", #""burst";q=100;w=60, "daily";q=1000;w=86400"#),
            ("RateLimit", #""burst";r=40;t=12, "daily";r=7;t=3600"#),
        ])
        #expect(signal == RateLimitSignal(limit: 1000, remaining: 7, resetIn: .seconds(3600), window: .seconds(86400)))
    }

    @Test func aQuotaInBytesIsNotAQuotaOfRequests() {
        let signal = Self.signal(200, [
            ("RateLimit-Policy", #""bytes";q=65535;qu="content-bytes";w=10"#), ("RateLimit", #""bytes";r=10;t=5"#),
        ])
        #expect(signal.limit == nil)
        #expect(signal.remaining == 10)
    }

    @Test func retryAfterAndRefusals() {
        let refused = Self.signal(429, [("Retry-After", "7")])
        #expect(refused.retryAfter == .seconds(7))
        #expect(refused.isRefusal)
        // GitHub's primary limit refuses with 403 and nothing remaining; another 403 is not about the rate.
        #expect(Self.signal(403, [("X-RateLimit-Remaining", "0")]).isRefusal)
        #expect(!Self.signal(403, [("X-RateLimit-Remaining", "3")]).isRefusal)
        #expect(Self.signal(200, []).isEmpty)
    }

    @Test("Retry-After holds only with a 429, a 503 or a 403; on a 200 or a 202 it asks for nothing (attack12 M2)")
    func retryAfterOnlyWhereItAsksForAPause() {
        for status in [429, 503, 403] { #expect(Self.signal(status, [("Retry-After", "120")]).retryAfter == .seconds(120)) }
        for status in [200, 202, 206, 301, 404, 500] { #expect(Self.signal(status, [("Retry-After", "120")]).retryAfter == nil) }
    }

    @Test func garbageIsIgnored() {
        let signal = Self.signal(200, [
            ("X-RateLimit-Remaining", "-1"), ("X-RateLimit-Reset", "inf"), ("RateLimit", #""x";r=abc, ;;, "y""#),
            ("RateLimit-Policy", "\"unterminated;q=5"),
        ])
        #expect(signal.remaining == nil)
        #expect(signal.resetIn == nil)
        #expect(signal.limit == nil)
    }

    @Test func structuredFieldListsSplitOutsideStrings() {
        let members = StructuredFieldList.parse([#""a,b";r=1;t="x;y""#, #"tok;pk=:cHsdsRa894==:;flag"#])
        #expect(members == [
            .init(item: "a,b", parameters: ["r": "1", "t": "x;y"]),
            .init(item: "tok", parameters: ["pk": ":cHsdsRa894==:", "flag": "?1"]),
        ])
    }
}

import Foundation
import Synchronization
import Testing

@testable import PageProxyCore

/// Retries: backoff with jitter, Retry-After in both forms, rate-limit resets, the budget and the deadline.
@Suite struct RetryingTransportTests {
    /// Answers from a script, one entry per request; records the waits the retrying transport asked for (on a
    /// virtual clock, which each wait moves forward).
    private final class Script: Sendable {
        private let clock: VirtualClock
        var waits: [Duration] { clock.sleeps }
        let transport: FakeTransport

        init(_ answers: [Result<UpstreamResponse, UpstreamError>], wallNow: Date = Date(timeIntervalSince1970: 1_000_000)) {
            clock = VirtualClock(wallStart: wallNow)
            let queue = Mutex(answers)
            transport = FakeTransport { _ throws(UpstreamError) in
                let next = queue.withLock { $0.isEmpty ? .success(.json("[]")) : $0.removeFirst() }
                return try next.get()
            }
        }

        func retrying(budget: Int, deadline: Duration = .seconds(60)) -> RetryingTransport {
            RetryingTransport(
                base: transport, policy: RetryPolicy(budget: budget), deadline: clock.now + deadline, random: { 0.5 }, clock: clock.clock)
        }
    }

    private static let request = UpstreamRequest(url: PageURL(string: "http://api.test/items")!)

    private static func status(_ code: Int, _ headers: [(String, String)] = []) -> Result<UpstreamResponse, UpstreamError> {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name, value) }
        return .success(UpstreamResponse(status: HTTPStatus(code: code), headers: fields, body: []))
    }

    private func send(_ transport: RetryingTransport) async throws(UpstreamError) -> UpstreamResponse {
        try await transport.send(Self.request, timeout: .seconds(5), maxBodyBytes: 1 << 20)
    }

    @Test func transient500IsRetriedWithBackoff() async throws {
        let script = Script([Self.status(500), Self.status(503), .success(.json("[1]"))])
        let transport = script.retrying(budget: 3)
        let response = try await send(transport)
        #expect(response.status.code == 200)
        #expect(script.transport.requestedURLs.count == 3)
        #expect(transport.retriesUsed == 2)
        // Full jitter at random 0.5: half of 100 ms, then half of 200 ms.
        #expect(script.waits == [.milliseconds(50), .milliseconds(100)])
    }

    @Test("408, 429 and every 5xx but 501 and 505 are retried (review24 P16); other statuses are not")
    func retriedStatuses() {
        for status in [408, 429, 500, 502, 503, 504, 507, 508, 520, 522, 524, 599] {
            #expect(RetryPolicy.retries(status: status), "\(status)")
        }
        for status in [200, 304, 400, 401, 403, 404, 410, 501, 505] {
            #expect(!RetryPolicy.retries(status: status), "\(status)")
        }
    }

    @Test func retryAfterInSecondsIsHonoured() async throws {
        let script = Script([Self.status(429, [("Retry-After", "7")]), .success(.json("[]"))])
        _ = try await send(script.retrying(budget: 3))
        #expect(script.waits == [.seconds(7)])
    }

    @Test func retryAfterAsAnHTTPDateIsHonoured() async throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let later = HTTPDate.format(now.addingTimeInterval(12))
        let script = Script([Self.status(503, [("Retry-After", later)]), .success(.json("[]"))], wallNow: now)
        _ = try await send(script.retrying(budget: 3))
        #expect(script.waits == [.seconds(12)])
    }

    @Test func exhaustedRateLimitWaitsForTheReset() async throws {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let script = Script(
            [Self.status(403, [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", "1000004")]), .success(.json("[]"))], wallNow: now)
        _ = try await send(script.retrying(budget: 3))
        #expect(script.waits == [.seconds(4)])
    }

    @Test func retryAfterPastTheLimitIsNotWaitedOut() async throws {
        let script = Script([Self.status(429, [("Retry-After", "3600")])])
        let response = try await send(script.retrying(budget: 3))
        #expect(response.status.code == 429)
        #expect(script.waits.isEmpty)
    }

    @Test func budgetIsNeverExceeded() async throws {
        let script = Script(Array(repeating: Self.status(502), count: 10))
        let transport = script.retrying(budget: 2)
        let response = try await send(transport)
        #expect(response.status.code == 502)
        #expect(script.transport.requestedURLs.count == 3)
        #expect(transport.retriesUsed == 2)
    }

    @Test func budgetIsSharedByAllPagesOfARequest() async throws {
        let script = Script([Self.status(500), .success(.json("[]")), Self.status(500), Self.status(500)])
        let transport = script.retrying(budget: 2)
        #expect(try await send(transport).status.code == 200)
        #expect(try await send(transport).status.code == 500)
        #expect(transport.retriesUsed == 2)
    }

    @Test func noRetryPastTheDeadline() async throws {
        let script = Script([Self.status(429, [("Retry-After", "10")])])
        let response = try await send(script.retrying(budget: 3, deadline: .seconds(5)))
        #expect(response.status.code == 429)
        #expect(script.transport.requestedURLs.count == 1)
    }

    @Test("the deadline is measured on the injected clock: waits that add up past it end the retries")
    func waitsThatAddUpPastTheDeadlineEndTheRetries() async throws {
        let script = Script([Self.status(429, [("Retry-After", "3")]), Self.status(429, [("Retry-After", "3")]), .success(.json("[]"))])
        let response = try await send(script.retrying(budget: 3, deadline: .seconds(5)))
        // 3 s waited of 5: another 3 s would pass the deadline, so the second 429 is the answer.
        #expect(response.status.code == 429)
        #expect(script.waits == [.seconds(3)])
        #expect(script.transport.requestedURLs.count == 2)
    }

    @Test func connectionErrorsAreRetriedButNotInvalidResponses() async throws {
        let lost = Script([.failure(.connectionLost(origin: "o", reason: "reset")), .success(.json("[]"))])
        #expect(try await send(lost.retrying(budget: 1)).status.code == 200)
        let invalid = Script([.failure(.invalidResponse(origin: "o", reason: "bad")), .success(.json("[]"))])
        await #expect(throws: UpstreamError.self) { _ = try await send(invalid.retrying(budget: 1)) }
        #expect(invalid.transport.requestedURLs.count == 1)
    }

    @Test func clientErrorsAreNotRetried() async throws {
        let script = Script([Self.status(404), .success(.json("[]"))])
        #expect(try await send(script.retrying(budget: 3)).status.code == 404)
        #expect(script.transport.requestedURLs.count == 1)
    }
}

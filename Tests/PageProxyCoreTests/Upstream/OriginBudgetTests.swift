import Foundation
import Testing

@testable import PageProxyCore

/// One budget per origin: concurrency, a token bucket, and the upstream's own rate-limit fields, in virtual time.
@Suite struct OriginBudgetTests {
    static let origin = "http://api.test"

    static func budget(_ configuration: OriginBudget.Configuration = .init(), _ clock: VirtualClock) -> OriginBudget {
        OriginBudget(origin: origin, configuration: configuration, clock: clock.clock)
    }

    /// Whether two waits agree to the millisecond (they pass through `Double` seconds).
    static func same(_ waits: [Duration], _ expected: [Duration]) -> Bool {
        waits.count == expected.count && zip(waits, expected).allSatisfy { abs(($0 - $1).timeInterval) < 0.001 }
    }

    /// An answer with GitHub's fields, the reset `resetIn` seconds from the virtual wall clock's start.
    static func limits(limit: Int, remaining: Int, resetIn: Int) -> HTTPHeaders {
        HTTPHeaders([
            ("X-RateLimit-Limit", String(limit)), ("X-RateLimit-Remaining", String(remaining)),
            ("X-RateLimit-Reset", String(1_700_000_000 + resetIn)),
        ])
    }

    /// A budget whose first request for partition "a" was answered with GitHub's fields; the deadline is a minute away.
    static func afterFirstAnswer(
        limit: Int, remaining: Int, resetIn: Int
    ) async throws -> (VirtualClock, OriginBudget, ContinuousClock.Instant) {
        let clock = VirtualClock()
        let budget = Self.budget(.init(), clock)
        let deadline = clock.now + .seconds(60)
        let probe = try await budget.acquire(partition: "a", deadline: deadline)
        await budget.finish(probe, status: 200, headers: Self.limits(limit: limit, remaining: remaining, resetIn: resetIn))
        return (clock, budget, deadline)
    }

    /// Starts an `acquire` in a task; the flag turns true once it is granted.
    static func acquireLater(
        _ budget: OriginBudget, partition: String, deadline: ContinuousClock.Instant
    ) -> (Task<OriginBudget.Permit, any Error>, Locked<Bool>) {
        let granted = Locked(false)
        let task = Task {
            let permit = try await budget.acquire(partition: partition, deadline: deadline)
            granted.withLock { $0 = true }
            return permit
        }
        return (task, granted)
    }

    /// A budget whose first request for "a" got a 429 with `Retry-After: retryAfter` (a long hold), the clock then
    /// moved on to when a probe may go.
    static func heldLong(
        retryAfter: String, _ configuration: OriginBudget.Configuration = .init()
    ) async throws -> (VirtualClock, OriginBudget) {
        let clock = VirtualClock()
        let budget = Self.budget(configuration, clock)
        let first = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        await budget.finish(first, status: 429, headers: HTTPHeaders([("Retry-After", retryAfter)]))
        clock.advance(by: RateLimitAllowance.probeInterval)
        return (clock, budget)
    }

    /// Answers the probe now due with `status` and `headers`; the hold must still refuse the next request.
    static func expectHoldAfterProbe(answered status: Int, _ headers: HTTPHeaders) async throws {
        let (clock, budget) = try await heldLong(retryAfter: "86400")
        let probe = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        await budget.finish(probe, status: status, headers: headers)
        await #expect(throws: UpstreamError.self) {
            _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        }
    }

    @Test func theFirstRequestGoesAloneUntilItsAnswerTellsTheLimit() async throws {
        let clock = VirtualClock()
        let budget = Self.budget(.init(), clock)
        let deadline = clock.now + .seconds(60)
        let probe = try await budget.acquire(partition: "a", deadline: deadline)
        let (second, granted) = Self.acquireLater(budget, partition: "a", deadline: deadline)
        // Other credentials have their own limit: their first request goes at once.
        _ = try await budget.acquire(partition: "b", deadline: deadline)
        for _ in 0..<1000 { await Task.yield() }
        #expect(!granted.value)
        await budget.finish(probe, status: 200, headers: Self.limits(limit: 10, remaining: 9, resetIn: 60))
        _ = try await second.value
        #expect(granted.value)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func aSpentBudgetMakesEveryRequestWaitForTheReset() async throws {
        let (clock, budget, deadline) = try await Self.afterFirstAnswer(limit: 2, remaining: 1, resetIn: 10)
        let last = try await budget.acquire(partition: "a", deadline: deadline)
        #expect(clock.sleeps.isEmpty)
        // Nothing remains: the next request waits for the reset (plus the margin), without asking the upstream.
        _ = try await budget.acquire(partition: "a", deadline: deadline)
        #expect(Self.same(clock.sleeps, [.milliseconds(10_100)]))
        #expect(budget.snapshot.waits == 1)
        await budget.finish(last, status: 200, headers: Self.limits(limit: 2, remaining: 0, resetIn: 10))
    }

    @Test func aWaitPastTheDeadlineFailsAtOnce() async throws {
        let clock = VirtualClock()
        let budget = Self.budget(.init(), clock)
        let probe = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        await budget.finish(probe, status: 200, headers: Self.limits(limit: 5000, remaining: 0, resetIn: 100))
        await #expect(throws: UpstreamError.rateLimited(origin: Self.origin, wait: .milliseconds(100_100))) {
            _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        }
        #expect(clock.sleeps.isEmpty)
        #expect(budget.snapshot.refusals == 1)
    }

    @Test func retryAfterHoldsTheCredentialsThatGotIt() async throws {
        let clock = VirtualClock()
        let budget = Self.budget(.init(), clock)
        let deadline = clock.now + .seconds(60)
        let probe = try await budget.acquire(partition: "a", deadline: deadline)
        await budget.finish(probe, status: 429, headers: HTTPHeaders([("Retry-After", "5")]))
        #expect(budget.snapshot.upstreamRefusals == 1)
        _ = try await budget.acquire(partition: "b", deadline: deadline)
        #expect(clock.sleeps.isEmpty)
        _ = try await budget.acquire(partition: "a", deadline: deadline)
        #expect(Self.same(clock.sleeps, [.seconds(5)]))
    }

    @Test("a hold years long lets one request through a minute, alone; an answer that allows requests ends the hold (attack11 H1)")
    func aLongHoldIsProbed() async throws {
        let clock = VirtualClock()
        let budget = Self.budget(.init(), clock)
        let first = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        await budget.finish(first, status: 429, headers: HTTPHeaders([("Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT")]))
        // Within the minute: refused at once, even with ten minutes to spare (not held for the probe), and told to
        // come back when the probe may go, not in 8,000 years.
        do {
            _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(600))
            Issue.record("a request went during the hold")
        } catch .rateLimited(_, let wait) {
            #expect(wait <= RateLimitAllowance.probeInterval)
        }
        #expect(clock.sleeps.isEmpty)
        clock.advance(by: RateLimitAllowance.probeInterval)
        // A minute on: one request goes alone (the others are refused at once while it is out: attack12 L1); an answer
        // that allows requests ends the hold.
        let probe = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        await #expect(throws: UpstreamError.self) {
            _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        }
        await budget.finish(probe, status: 200, headers: Self.limits(limit: 10, remaining: 9, resetIn: 60))
        _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        #expect(clock.sleeps.isEmpty)
    }

    @Test("a probe that is refused again renews the hold")
    func aRefusedProbeRenewsTheHold() async throws {
        try await Self.expectHoldAfterProbe(answered: 429, HTTPHeaders([("Retry-After", "86400")]))
    }

    @Test(
        "a probe that waits for the origin's concurrency and is cancelled leaves no probe out: the next one goes (review12)",
        .timeLimit(.minutes(1)))
    func aProbeThatNeverStartedIsNoProbe() async throws {
        let (clock, budget) = try await Self.heldLong(retryAfter: "7200", .init(maxConcurrent: 1))
        let other = try await budget.acquire(partition: "b", deadline: clock.now + .seconds(600))
        // A's probe is due, but the origin's one slot is B's: it waits, and its client leaves.
        let (probe, granted) = Self.acquireLater(budget, partition: "a", deadline: clock.now + .seconds(600))
        for _ in 0..<1000 { await Task.yield() }
        probe.cancel()
        _ = await probe.result
        #expect(!granted.value)
        await budget.finish(other, status: 200, headers: HTTPHeaders())
        // The next request of A is the probe; a lost one would leave it waiting for an answer that never comes.
        _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(600))
        #expect(budget.snapshot.inFlight == 1)
    }

    @Test("a probe that gets no answer (a connection error) was the minute's probe: the next request is refused (review13 N4)")
    func aProbeWithoutAnAnswerWaitsForTheNextMinute() async throws {
        let (clock, budget) = try await Self.heldLong(retryAfter: "86400")
        let probe = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        await budget.finish(probe, status: nil, headers: HTTPHeaders())
        await #expect(throws: UpstreamError.self) {
            _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        }
        clock.advance(by: RateLimitAllowance.probeInterval)
        _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        #expect(budget.snapshot.inFlight == 1)
    }

    @Test("while the probe is out, another request is refused at once, not held for the probe's answer (attack12 L1)",
          .timeLimit(.minutes(1)))
    func aRequestBesideTheProbeIsRefusedAtOnce() async throws {
        let (clock, budget) = try await Self.heldLong(retryAfter: "7200")
        let probe = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(600))
        // With ten minutes to spare it would have waited for the probe's answer (up to the page timeout).
        await #expect(throws: UpstreamError.self) {
            _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(600))
        }
        await budget.finish(probe, status: 200, headers: Self.limits(limit: 10, remaining: 9, resetIn: 60))
        _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
    }

    @Test("a 200 with Retry-After holds nothing: the next request goes at once (attack12 M2)")
    func aRetryAfterOnASuccessHoldsNothing() async throws {
        let clock = VirtualClock()
        let budget = Self.budget(.init(), clock)
        let first = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(30))
        await budget.finish(first, status: 200, headers: HTTPHeaders([("Retry-After", "120")]))
        _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(1))
        #expect(clock.sleeps.isEmpty)
    }

    @Test("20,000 credentials each held for an hour are pruned a logarithmic number of times, and stay bounded (attack12 M3)")
    func manyHeldCredentialsArePrunedRarely() async throws {
        let clock = VirtualClock()
        let budget = Self.budget(.init(), clock)
        for token in 0..<20_000 {
            let permit = try await budget.acquire(partition: "t\(token)", deadline: clock.now + .seconds(30))
            await budget.finish(permit, status: 200, headers: Self.limits(limit: 10, remaining: 0, resetIn: 3600))
        }
        // Filtered on every answer past 1,024 before: ~19,000 passes over a growing dictionary.
        #expect(await budget.prunes <= 8)
        #expect(await budget.partitionCount <= 2 * OriginBudget.maxHeldPartitions)
        // A token forgotten past the bound goes again (alone, to learn its limit); one with its window in force and
        // kept is held until its reset: more than a few seconds away, so refused with this deadline.
        _ = try await budget.acquire(partition: "new", deadline: clock.now + .seconds(30))
        let kept = await budget.keptPartitions
        if let held = kept.first {
            await #expect(throws: UpstreamError.self) { _ = try await budget.acquire(partition: held, deadline: clock.now + .seconds(5)) }
        }
        if let forgotten = (0..<20_000).lazy.map({ "t\($0)" }).first(where: { !kept.contains($0) }) {
            _ = try await budget.acquire(partition: forgotten, deadline: clock.now + .seconds(5))
        }
    }

    @Test("the credentials' identity is the fields and query parameters that may carry one, nothing else (attack12 M1)")
    func thePartitionIsTheCredentialsOnly() throws {
        let url = try #require(PageURL(string: "http://127.0.0.1:9/items?page=2"))
        func partition(_ fields: [(String, String)], _ target: PageURL? = nil) -> String {
            OriginBudget.partition(of: HTTPHeaders(fields), url: target ?? url)
        }
        let token = partition([("Authorization", "Bearer a"), ("X-Request-Id", "1"), ("traceparent", "00-1")])
        // Tracing fields, a route's Accept or a static header, and the page's own query do not split one token.
        #expect(partition([("Authorization", "Bearer a"), ("X-Request-Id", "2"), ("traceparent", "00-2")]) == token)
        #expect(partition([("Authorization", "Bearer a"), ("Accept", "application/json"), ("X-Client", "b")]) == token)
        #expect(partition([("Authorization", "Bearer a")], PageURL(string: "http://127.0.0.1:9/items?page=3")) == token)
        // Another token, a key in another field or in the query, a cookie: other credentials.
        #expect(partition([("Authorization", "Bearer b")]) != token)
        #expect(partition([("X-Api-Key", "k1")]) != partition([("X-Api-Key", "k2")]))
        #expect(partition([("Cookie", "s=1")]) != partition([("Cookie", "s=2")]))
        #expect(partition([], PageURL(string: "http://127.0.0.1:9/items?api_key=1")) != partition([], PageURL(string: "http://127.0.0.1:9/items?api_key=2")))
        #expect(partition([]) == partition([("User-Agent", "x")]))
        // A cursor the walk sends back changes every page: it is no credential, whatever its name (review14 F1).
        for cursor in ["pageToken", "page_token", "pagination_token", "$skiptoken", "continuation-token", "NextToken", "sort_key", "_token"] {
            #expect(partition([("Authorization", "Bearer a")], PageURL(string: "http://127.0.0.1:9/items?\(cursor)=x1")) == token, "\(cursor)")
        }
        // AWS Signature Version 4 signs every request anew: the access key it names is the identity.
        let signed = { (signature: String) in
            partition([("Authorization", "AWS4-HMAC-SHA256 Credential=AKID/20261127/eu-west-1/s3/aws4_request, SignedHeaders=host, Signature=\(signature)"),
                       ("X-Amz-Date", "20261127T031\(signature.prefix(1))00Z")])
        }
        #expect(signed("1abc") == signed("2def"))
        #expect(partition([("Authorization", "AWS4-HMAC-SHA256 Credential=OTHER/20261127/eu-west-1/s3/aws4_request, Signature=1abc")]) != signed("1abc"))
    }

    @Test("HTTP message signatures (RFC 9421, draft-cavage) differ on every request: the key they name is the identity (loose13)")
    func messageSignaturesArePartitionedByTheirKey() throws {
        let url = try #require(PageURL(string: "http://127.0.0.1:9/items"))
        func partition(_ fields: [(String, String)]) -> String { OriginBudget.partition(of: HTTPHeaders(fields), url: url) }
        // RFC 9421: `created`, `nonce` and the signature change; `keyid` does not.
        let rfc9421 = { (key: String, created: Int) in
            partition([("Signature-Input", #"sig1=("@method" "@target-uri");created=\#(created);keyid="\#(key)";nonce="\#(created)""#),
                       ("Signature", "sig1=:YWJj\(created)ZGVm=:")])
        }
        #expect(rfc9421("k1", 1) == rfc9421("k1", 2))
        #expect(rfc9421("k1", 1) != rfc9421("k2", 1))
        // draft-cavage, as Mastodon signs a fetch: in `Signature`, or in `Authorization: Signature`; `Date` changes too.
        let cavage = { (field: String, key: String, signature: String) in
            partition([(field, (field == "Authorization" ? "Signature " : "")
                            + #"keyId="\#(key)",algorithm="rsa-sha256",headers="(request-target) host date",signature="\#(signature)""#),
                       ("Date", "Fri, 27 Nov 2026 05:\(signature.count):00 GMT")])
        }
        for field in ["Signature", "Authorization"] {
            #expect(cavage(field, "https://a.example/users/alice#main-key", "abc=") == cavage(field, "https://a.example/users/alice#main-key", "xyz9+/=="))
            #expect(cavage(field, "https://a.example/users/alice#main-key", "abc=") != cavage(field, "https://a.example/users/bob#main-key", "abc="))
        }
        // The key's name in any case, several signatures each naming theirs, and none at all.
        #expect(SigningKeyID.keyIDs(in: #"sig1=();KEYID="a";created=1, sig2=();keyid=b"#) == "a,b")
        #expect(SigningKeyID.keyIDs(in: "sig1=:a2V5aWQ9eA==:") == "")
        #expect(SigningKeyID.keyIDs(in: #"sig1=:xkeyid="no":"#) == "")
        #expect(SigningKeyID.keyIDs(in: #"keyId="unterminated\"#) == "unterminated\\")
    }

    @Test("a probe answered by a 503 with no rate-limit fields (a load balancer) does not end the hold (review12)")
    func aProbeAnsweredByA503KeepsTheHold() async throws {
        try await Self.expectHoldAfterProbe(answered: 503, HTTPHeaders())
    }

    @Test func theWindowRefillsToTheLimitLessWhatIsInFlight() async throws {
        let (clock, budget, deadline) = try await Self.afterFirstAnswer(limit: 3, remaining: 1, resetIn: 1)
        let early = try await budget.acquire(partition: "a", deadline: deadline)
        // Spent: wait for the reset. `early` is still in flight and may land in the new window, so 2 of 3 remain.
        let second = try await budget.acquire(partition: "a", deadline: deadline)
        let third = try await budget.acquire(partition: "a", deadline: deadline)
        #expect(Self.same(clock.sleeps, [.milliseconds(1100)]))
        for permit in [early, second, third] { await budget.finish(permit, status: nil, headers: HTTPHeaders()) }
        // The new window's reset is unknown: once spent, the budget waits a second, then takes the limit again.
        _ = try await budget.acquire(partition: "a", deadline: deadline)
        #expect(Self.same(clock.sleeps, [.milliseconds(1100), .seconds(1)]))
    }

    @Test func theWindowFromThePolicyKeepsTheResetKnown() async throws {
        let clock = VirtualClock()
        let budget = Self.budget(.init(), clock)
        let deadline = clock.now + .seconds(60)
        let probe = try await budget.acquire(partition: "a", deadline: deadline)
        await budget.finish(
            probe, status: 200, headers: HTTPHeaders([("RateLimit-Policy", #""default";q=1;w=10"#), ("RateLimit", #""default";r=0;t=4"#)]))
        let next = try await budget.acquire(partition: "a", deadline: deadline)
        await budget.finish(next, status: nil, headers: HTTPHeaders())
        _ = try await budget.acquire(partition: "a", deadline: deadline)
        // Reset 4 s (+ margin) away, then a full window of 10 s later.
        #expect(Self.same(clock.sleeps, [.milliseconds(4100), .seconds(10)]))
    }

    @Test func maxConcurrentHoldsTheNextUntilOneFinishes() async throws {
        let clock = VirtualClock()
        let budget = Self.budget(.init(maxConcurrent: 2, followsUpstreamSignals: false), clock)
        let deadline = clock.now + .seconds(60)
        let first = try await budget.acquire(partition: "a", deadline: deadline)
        _ = try await budget.acquire(partition: "b", deadline: deadline)
        let (third, granted) = Self.acquireLater(budget, partition: "c", deadline: deadline)
        for _ in 0..<1000 { await Task.yield() }
        #expect(!granted.value)
        #expect(budget.snapshot.inFlight == 2)
        await budget.finish(first, status: 200, headers: HTTPHeaders())
        _ = try await third.value
        #expect(granted.value)
        #expect(budget.snapshot.waits == 1)
    }

    @Test func requestsPerSecondIsATokenBucketOfOneSecond() async throws {
        let clock = VirtualClock()
        let budget = Self.budget(.init(requestsPerSecond: 2, followsUpstreamSignals: false), clock)
        let deadline = clock.now + .seconds(60)
        for _ in 0..<4 { _ = try await budget.acquire(partition: "a", deadline: deadline) }
        // Two tokens at once, then one every half second.
        #expect(Self.same(clock.sleeps, [.milliseconds(500), .milliseconds(500)]))
        #expect(budget.snapshot.tokens.map { $0 < 1 } == true)
    }

    @Test func aCancelledWaiterStopsWaiting() async throws {
        let clock = VirtualClock()
        let budget = Self.budget(.init(maxConcurrent: 1, followsUpstreamSignals: false), clock)
        _ = try await budget.acquire(partition: "a", deadline: clock.now + .seconds(60))
        let waiter = Task { try await budget.acquire(partition: "a", deadline: clock.now + .seconds(60)) }
        for _ in 0..<100 { await Task.yield() }
        waiter.cancel()
        await #expect(throws: UpstreamError.cancelled) { _ = try await waiter.value }
    }

    @Test func routesOnOneOriginShareOneBudgetWithTheStrictestLimits() {
        let budgets = OriginBudgets([
            (Self.origin, .init(maxConcurrent: 8, requestsPerSecond: nil, followsUpstreamSignals: false)),
            (Self.origin, .init(maxConcurrent: 2, requestsPerSecond: 5, followsUpstreamSignals: true)),
            ("http://other.test", .init(maxConcurrent: nil, requestsPerSecond: nil, followsUpstreamSignals: false)),
        ])
        #expect(budgets.budget(for: Self.origin)?.configuration == .init(maxConcurrent: 2, requestsPerSecond: 5, followsUpstreamSignals: true))
        // A route that asks for nothing gets no budget at all.
        #expect(budgets.budget(for: "http://other.test") == nil)
    }
}

import PageProxyMock
import Foundation
import Synchronization
import Testing

@testable import PageProxyCore

/// Issue 13: a request that joins another's fetch keeps its own deadline and retry budget. The time is a
/// `SteppedClock` (deadlines and backoffs end when the test moves it), the upstream a script of held answers.
@Suite struct CollapsedFetchLimitsTests {
    /// An upstream whose `n`th request waits at its own gate, then answers `answer(n)`; it keeps to the timeout it
    /// is given (on the test's clock), as the real transport does, and notes the requests that were cancelled.
    final class HeldUpstream: UpstreamTransport {
        private struct Record {
            var timeouts: [Duration] = []
            var cancelled = 0
        }

        private let record = Mutex(Record())
        private let gates: [Gate]
        private let clock: SteppedClock
        private let answer: @Sendable (Int) -> UpstreamResponse

        init(requests: Int, clock: SteppedClock, answer: @escaping @Sendable (Int) -> UpstreamResponse) {
            gates = (0..<requests).map { _ in Gate() }
            self.clock = clock
            self.answer = answer
        }

        /// The gate of the `n`th request (1-based).
        func gate(_ n: Int) -> Gate { gates[n - 1] }
        var count: Int { record.withLock { $0.timeouts.count } }
        var timeouts: [Duration] { record.withLock { $0.timeouts } }
        var cancelled: Int { record.withLock { $0.cancelled } }

        func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
            let n = record.withLock { $0.timeouts.append(timeout); return $0.timeouts.count }
            guard n <= gates.count else { throw .connectFailed(origin: "http://api.test", reason: "request \(n) not scripted") }
            let (gate, clock) = (gates[n - 1], clock)
            let deadline = clock.now + timeout
            let answered = await withTaskGroup(of: Bool?.self) { group in
                group.addTask {
                    await gate.wait()
                    return true
                }
                group.addTask {
                    do {
                        try await clock.clock.sleep(deadline)
                        return false
                    } catch {
                        return nil
                    }
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            if Task.isCancelled {
                record.withLock { $0.cancelled += 1 }
                throw .cancelled
            }
            guard answered == true else { throw .timedOut(origin: "http://api.test") }
            // The body limit kept as the real transport keeps it.
            let response = answer(n)
            guard response.body.count <= maxBodyBytes else { throw .responseTooLarge(origin: "http://api.test", limit: maxBodyBytes) }
            return response
        }
    }

    static let request = UpstreamRequest(url: PageURL(string: "http://api.test/items?page=1")!)
    static let pageTimeout = Duration.seconds(30)
    let directory = TemporaryDirectory()
    let clock = SteppedClock()

    func makeSource() -> CachingPageSource {
        CachingPageSource(store: DiskStore(directory: directory.path, maxBytes: 1 << 20), clock: clock.clock)
    }

    /// A client request's transport: `budget` retries, backoffs of their full ceiling (100 ms, 200 ms, …), `deadline`
    /// from the clock's start, all on the test's clock.
    func client(_ upstream: HeldUpstream, budget: Int, deadline: Duration = .seconds(3600)) -> RetryingTransport {
        RetryingTransport(base: upstream, policy: RetryPolicy(budget: budget), deadline: clock.at(deadline), random: { 1 }, clock: clock.clock)
    }

    /// A fetch of the page, running in a task of its own.
    struct RunningFetch {
        let task: Task<Void, Never>
        let outcome: Locked<Result<CachingPageSource.Fetched, UpstreamError>?>

        /// Its result, once it has one; a failure saying so if it still runs after a bounded number of yields (it is
        /// then cancelled, so that a test of code without the fix fails instead of hanging).
        func result() async -> Result<CachingPageSource.Fetched, UpstreamError> {
            if await yieldUntil(limit: 1_000_000, { outcome.value != nil }), let result = outcome.value { return result }
            task.cancel()
            return .failure(.connectFailed(origin: "test", reason: "the fetch is still running"))
        }
    }

    /// Starts a fetch of the page with `transport`, in a task of its own.
    func start(
        _ source: CachingPageSource, _ transport: RetryingTransport, policy: CachePolicy = CachePolicy(ttl: .seconds(60)),
        pageTimeout: Duration = Self.pageTimeout, maxBodyBytes: Int = 1 << 20
    ) -> RunningFetch {
        let outcome = Locked<Result<CachingPageSource.Fetched, UpstreamError>?>(nil)
        let task = Task {
            do throws(UpstreamError) {
                let fetched = try await source.fetch(Self.request, policy: policy, transport: transport, timeout: pageTimeout, maxBodyBytes: maxBodyBytes)
                outcome.withLock { $0 = .success(fetched) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        return RunningFetch(task: task, outcome: outcome)
    }

    /// Starts a leader (deadline 8 s) whose request the upstream holds, then a joiner (deadline 15 s) of its fetch.
    func leaderAndJoiner(_ source: CachingPageSource, _ upstream: HeldUpstream, joinerBudget: Int = 1) async -> (leader: RunningFetch, joiner: RunningFetch) {
        let leader = start(source, client(upstream, budget: 1, deadline: .seconds(8)))
        #expect(await yieldUntil { upstream.gate(1).waiting == 1 })
        let joiner = start(source, client(upstream, budget: joinerBudget, deadline: .seconds(15)))
        #expect(await yieldUntil { await source.waiterCount(for: Self.request) == 2 })
        return (leader, joiner)
    }

    /// The pending sleeps that are backoffs: not the deadlines (an hour), nor the page times (30 s from a try's
    /// sending; the tests that look for backoffs move the clock less than 10 s).
    var backoffWakeUps: [Duration] { clock.pendingWakeUps.filter { $0 < .seconds(20) } }

    static func status(_ code: Int) -> UpstreamResponse {
        UpstreamResponse(status: HTTPStatus(code: code), headers: HTTPHeaders(), body: [])
    }

    // MARK: - Route limits (review: a joiner took the leader's TTL and page size)

    @Test("a joiner takes the page of another route's fetch by its own TTL and page size")
    func aJoinerJudgesTheSharedPageByItsOwnLimits() async throws {
        let upstream = HeldUpstream(requests: 1, clock: clock) { _ in .json("[1,2,3]") }
        let source = makeSource()
        let leader = start(source, client(upstream, budget: 0), policy: CachePolicy(ttl: .seconds(3600)))
        #expect(await yieldUntil { upstream.gate(1).waiting == 1 })
        let short = start(source, client(upstream, budget: 0), policy: CachePolicy(ttl: .seconds(1)))
        let small = start(source, client(upstream, budget: 0), policy: CachePolicy(ttl: .seconds(3600), maxBodyBytes: 4))
        #expect(await yieldUntil { await source.waiterCount(for: Self.request) == 3 })
        upstream.gate(1).open()
        let long = try #require(try await leader.result().get().stored)
        let joined = try #require(try await short.result().get().stored)
        let now = clock.clock.wallNow()
        #expect(long.freshUntil > now.addingTimeInterval(3000))
        // Fresh for a second only: its Cache-Control and the memo end there, not in an hour.
        #expect(joined.freshUntil <= now.addingTimeInterval(1))
        // Larger than its pages may be: refused as the route's own request would have been.
        await #expect(throws: UpstreamError.responseTooLarge(origin: "http://api.test", limit: 4)) { try await small.result().get() }
        #expect(upstream.count == 1)
    }

    @Test("a joiner whose page size limit is larger than the leader's is not failed by the leader's: it asks for the page itself (review20 F3)",
          arguments: [true, false])
    func aJoinerIsNotFailedByASmallerLimitOfTheLeaders(cached: Bool) async throws {
        let page = UpstreamResponse.json("[\"" + String(repeating: "x", count: 4096) + "\"]")
        let upstream = HeldUpstream(requests: 2, clock: clock) { _ in page }
        let source = makeSource()
        let ttl: Duration = cached ? .seconds(60) : .zero
        let small = start(source, client(upstream, budget: 0), policy: CachePolicy(ttl: ttl, maxBodyBytes: 1024), maxBodyBytes: 1024)
        #expect(await yieldUntil { upstream.gate(1).waiting == 1 })
        let large = start(source, client(upstream, budget: 0), policy: CachePolicy(ttl: ttl))
        #expect(await yieldUntil { await source.waiterCount(for: Self.request) == 2 })
        upstream.gate(1).open()
        await #expect(throws: UpstreamError.responseTooLarge(origin: "http://api.test", limit: 1024)) { try await small.result().get() }
        // The larger route's own request (no retry budget: the leader's refusal was no try of its own).
        #expect(await yieldUntil { upstream.gate(2).waiting == 1 })
        upstream.gate(2).open()
        let fetched = try await large.result().get()
        #expect(fetched.response.body == page.body)
        #expect(fetched.outcome == (cached ? .miss : .bypass))
        #expect(upstream.count == 2)
    }

    // MARK: - Deadlines (attack3 F3)

    @Test("a leader's deadline passing does not end the fetch a joiner with a later deadline waits for: one upstream request, the joiner served")
    func theFetchOutlivesTheLeadersDeadline() async throws {
        let upstream = HeldUpstream(requests: 2, clock: clock) { _ in .json("[1]") }
        let source = makeSource()
        let (leader, joiner) = await leaderAndJoiner(source, upstream)
        // The upstream takes 10 s: the leader gives up at 8 s, as it would alone.
        clock.advance(by: .seconds(8))
        await #expect(throws: UpstreamError.timedOut(origin: "http://api.test")) { try await leader.result().get() }
        clock.advance(by: .seconds(2))
        upstream.gate(1).open()
        let joined = try await joiner.result().get()
        #expect(joined.response.body == Array("[1]".utf8))
        #expect(joined.outcome == .miss)
        #expect(upstream.count == 1)
        #expect(upstream.cancelled == 0)
        // The one request was not cut at the leader's deadline: the transport had only the backstop, the waiters'
        // page times (30 s each) end it.
        #expect(upstream.timeouts == [FlightDeadline.tryBackstop])
    }

    @Test("each request gives up at its own deadline; the fetch ends when the last one has")
    func eachWaiterFailsAtItsOwnDeadline() async throws {
        let upstream = HeldUpstream(requests: 1, clock: clock) { _ in .json("[1]") }
        let source = makeSource()
        let (leader, joiner) = await leaderAndJoiner(source, upstream)
        clock.advance(by: .seconds(8))
        await #expect(throws: UpstreamError.timedOut(origin: "http://api.test")) { try await leader.result().get() }
        #expect(upstream.gate(1).waiting == 1, "the fetch goes on for the joiner")
        clock.advance(by: .seconds(6))
        #expect(await source.waiterCount(for: Self.request) == 1)
        clock.advance(by: .seconds(1))
        await #expect(throws: UpstreamError.timedOut(origin: "http://api.test")) { try await joiner.result().get() }
        // No one waits any more: the upstream request is cancelled, and it was the only one.
        #expect(await yieldUntil { upstream.cancelled == 1 })
        #expect(upstream.count == 1)
    }

    @Test("a leader whose client leaves does not end the fetch a joiner waits for")
    func theFetchOutlivesTheLeadersDeparture() async throws {
        let upstream = HeldUpstream(requests: 2, clock: clock) { _ in .json("[1]") }
        let source = makeSource()
        let (leader, joiner) = await leaderAndJoiner(source, upstream, joinerBudget: 0)
        leader.task.cancel()
        await #expect(throws: UpstreamError.cancelled) { try await leader.result().get() }
        clock.advance(by: .seconds(10))
        upstream.gate(1).open()
        #expect(try await joiner.result().get().response.body == Array("[1]".utf8))
        #expect(upstream.count == 1)
        #expect(upstream.cancelled == 0)
    }

    @Test("a request whose deadline passes while it waits serves the stale page its route allows, as for any failure")
    func aDeadlineIsAFailureStaleIfErrorCovers() async throws {
        let upstream = HeldUpstream(requests: 2, clock: clock) { n in .json("[\(n)]") }
        let source = makeSource()
        // A TTL of a nanosecond: the page is stale as soon as it is stored.
        let policy = CachePolicy(ttl: .nanoseconds(1), staleIfError: true)
        upstream.gate(1).open()
        #expect(try await start(source, client(upstream, budget: 0), policy: policy).result().get().outcome == .miss)
        let late = start(source, client(upstream, budget: 0, deadline: .seconds(8)), policy: policy)
        #expect(await yieldUntil { upstream.gate(2).waiting == 1 })
        clock.advance(by: .seconds(8))
        let served = try await late.result().get()
        #expect(served.outcome == .stale)
        #expect(served.response.body == Array("[1]".utf8))
    }

    // MARK: - Page timeouts (issue 13: a flight ran with its starter's)

    /// Starts a fetch with no retries and `pageTimeout` whose request the upstream holds, then, `after` that on the
    /// clock, `joiner`'s fetch of the same page with `joinerTimeout`; returns once both wait for the one try.
    func starterAndJoiner(
        _ source: CachingPageSource, _ upstream: HeldUpstream, pageTimeout: Duration, joiner: RetryingTransport, joinerTimeout: Duration,
        after: Duration = .zero
    ) async -> (starter: RunningFetch, joiner: RunningFetch) {
        let starter = start(source, client(upstream, budget: 0), pageTimeout: pageTimeout)
        #expect(await yieldUntil { upstream.gate(1).waiting == 1 })
        clock.advance(by: after)
        let joined = start(source, joiner, pageTimeout: joinerTimeout)
        #expect(await yieldUntil { await source.waiterCount(for: Self.request) == 2 })
        return (starter, joined)
    }

    @Test("a joiner whose route has a longer page timeout keeps the try alive past the starter's: one upstream request, the joiner served")
    func aLongerPageTimeoutLengthensTheTry() async throws {
        let upstream = HeldUpstream(requests: 2, clock: clock) { _ in .json("[1]") }
        let source = makeSource()
        // The joiner joins a second after the try was sent: alone, its own try would run until 1 + 2 s.
        let long = client(upstream, budget: 1)
        let (short, joiner) = await starterAndJoiner(
            source, upstream, pageTimeout: .seconds(2), joiner: long, joinerTimeout: .seconds(2), after: .seconds(1))
        // The starter's page time ends at 2 s: it gives up, as it would alone.
        clock.advance(by: .seconds(1))
        await #expect(throws: UpstreamError.timedOut(origin: "http://api.test")) { try await short.result().get() }
        #expect(upstream.gate(1).waiting == 1 && upstream.cancelled == 0, "the try goes on for the joiner")
        clock.advance(by: .milliseconds(500))
        upstream.gate(1).open()
        #expect(try await joiner.result().get().response.body == Array("[1]".utf8))
        #expect(long.retriesUsed == 0, "served by the try it joined, within its own page time")
        #expect(upstream.count == 1)
    }

    @Test("a try one waiter left, answering after the retry's newer one, reaches its other waiter but is not stored over it (review15 B1)")
    func aRetiredTrysLateAnswerDoesNotReplaceANewerOne() async throws {
        let upstream = HeldUpstream(requests: 2, clock: clock) { n in .json("[\(n)]") }
        let source = makeSource()
        let hasty = start(source, client(upstream, budget: 1), pageTimeout: .seconds(2))
        #expect(await yieldUntil { upstream.gate(1).waiting == 1 })
        let patient = start(source, client(upstream, budget: 0), pageTimeout: .seconds(60))
        #expect(await yieldUntil { await source.waiterCount(for: Self.request) == 2 })
        // The hasty request's page time ends: it leaves the try (which goes on for the patient one) and retries.
        clock.advance(by: .seconds(2))
        #expect(await yieldUntil { !self.backoffWakeUps.isEmpty })
        clock.advance(by: .seconds(1))
        #expect(await yieldUntil { upstream.gate(2).waiting == 1 })
        upstream.gate(2).open()
        #expect(try await hasty.result().get().response.body == Array("[2]".utf8))
        // The first try answers last, with what the upstream said before: its own waiter gets it, the store keeps [2].
        upstream.gate(1).open()
        #expect(try await patient.result().get().response.body == Array("[1]".utf8))
        let again = start(source, client(upstream, budget: 0))
        #expect(try await again.result().get().response.body == Array("[2]".utf8))
        #expect(upstream.count == 2)
    }

    @Test("each waiter gives up at its own page timeout, counted from the try's sending; the try ends when the last one has")
    func eachWaiterFailsAtItsOwnPageTimeout() async throws {
        let upstream = HeldUpstream(requests: 2, clock: clock) { _ in .json("[1]") }
        let source = makeSource()
        let (long, short) = await starterAndJoiner(
            source, upstream, pageTimeout: .seconds(10), joiner: client(upstream, budget: 0), joinerTimeout: .seconds(2))
        clock.advance(by: .seconds(2))
        await #expect(throws: UpstreamError.timedOut(origin: "http://api.test")) { try await short.result().get() }
        #expect(upstream.gate(1).waiting == 1 && upstream.cancelled == 0)
        clock.advance(by: .seconds(8))
        await #expect(throws: UpstreamError.timedOut(origin: "http://api.test")) { try await long.result().get() }
        // No one waits any more: the upstream request is cancelled, and it was the only one.
        #expect(await yieldUntil { upstream.cancelled == 1 })
        #expect(upstream.count == 1)
    }

    // MARK: - Retry budgets (attack3 F8)

    @Test("a joiner whose joined fetches failed retries with its own budget: amid zero-retry leaders it is served, within its budget")
    func aJoinerAmidZeroRetryLeadersUsesItsOwnBudget() async throws {
        // The page fails for its first four requests (each led by a client with no retries), then answers.
        let upstream = HeldUpstream(requests: 5, clock: clock) { n in n <= 4 ? Self.status(503) : .json("[\(n)]") }
        let source = makeSource()
        let patient = client(upstream, budget: 5)
        var joiner: RunningFetch?
        for round in 1...4 {
            let short = start(source, client(upstream, budget: 0))
            #expect(await yieldUntil { upstream.gate(round).waiting == 1 })
            if joiner == nil {
                joiner = start(source, patient)
            } else {
                // The joiner is waiting out its backoff: it ends now, and it joins the short client's fetch.
                clock.advance(by: .seconds(2))
            }
            #expect(await yieldUntil { await source.waiterCount(for: Self.request) == 2 }, "round \(round)")
            upstream.gate(round).open()
            #expect(try await short.result().get().response.status.code == 503, "a client with no retries takes the failure")
            // The joiner saw a failed try, and waits for its own retry (its backoff is the only wait short of an hour).
            #expect(await yieldUntil { !backoffWakeUps.isEmpty }, "round \(round)")
        }
        // It has tries left: it leads the next fetch itself.
        clock.advance(by: .seconds(2))
        #expect(await yieldUntil { upstream.gate(5).waiting == 1 })
        upstream.gate(5).open()
        let served = try #require(try await joiner?.result().get())
        #expect(served.response.body == Array("[5]".utf8))
        #expect(patient.retriesUsed == 4, "four failed tries seen, four retries of its own budget of five")
        #expect(upstream.count == 5)
    }

    @Test("tries a request saw count against its budget: with no retries left it takes the failure it joined, and asks no more")
    func joinedTriesCountAgainstTheBudget() async throws {
        let upstream = HeldUpstream(requests: 3, clock: clock) { n in n <= 2 ? Self.status(503) : .json("[\(n)]") }
        let source = makeSource()
        let leader = start(source, client(upstream, budget: 1))
        #expect(await yieldUntil { upstream.gate(1).waiting == 1 })
        let small = client(upstream, budget: 1)
        let joiner = start(source, small)
        #expect(await yieldUntil { await source.waiterCount(for: Self.request) == 2 })
        upstream.gate(1).open()
        // Both back off (100 ms), and both retry in one fetch: the second request.
        #expect(await yieldUntil { backoffWakeUps.count == 2 })
        clock.advance(by: .seconds(1))
        #expect(await yieldUntil { upstream.gate(2).waiting == 1 })
        #expect(await yieldUntil { await source.waiterCount(for: Self.request) == 2 })
        upstream.gate(2).open()
        #expect(try await leader.result().get().response.status.code == 503)
        #expect(try await joiner.result().get().response.status.code == 503)
        #expect(small.retriesUsed == 1)
        #expect(upstream.count == 2, "two tries each, shared: no third request")
    }
}

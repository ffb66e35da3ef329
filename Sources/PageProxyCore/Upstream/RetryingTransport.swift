import Foundation
import Synchronization

/// Sends one client request's page requests with retries, within that request's retry budget and deadline.
///
/// Made once per client request: the budget and the deadline are shared by all its pages. A response that is still
/// retryable when the budget or the time runs out is returned as it is, so the walk reports the upstream's status.
package final class RetryingTransport: UpstreamTransport {
    private let base: any UpstreamTransport
    private let policy: RetryPolicy
    /// When this client request's time is up: no request and no retry starts after it.
    package let until: ContinuousClock.Instant
    private let remaining: Mutex<Int>
    private let retried = Mutex(0)
    private let random: @Sendable () -> Double
    /// Measures the deadline, waits between tries and reads upstreams' dates.
    private let clock: PageProxyClock
    private let budgets: OriginBudgets?

    /// - Parameter budgets: every origin's shared budget; each attempt waits for its origin's before it is sent.
    package init(
        base: any UpstreamTransport, policy: RetryPolicy, deadline: ContinuousClock.Instant, budgets: OriginBudgets? = nil,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }, clock: PageProxyClock = .system
    ) {
        self.base = base
        self.policy = policy
        self.until = deadline
        self.remaining = Mutex(policy.budget)
        self.random = random
        self.clock = clock
        self.budgets = budgets
    }

    package var deadline: ContinuousClock.Instant? { until }

    /// How many retries this client request has used.
    package var retriesUsed: Int { retried.withLock { $0 } }

    package func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        var attempt = 0
        while true {
            attempt += 1
            let left = until - clock.now()
            guard left > .zero else { throw .timedOut(origin: request.url.origin.description) }
            let outcome = await sendWithinBudget(request, timeout: min(timeout, left), maxBodyBytes: maxBodyBytes, deadline: until)
            guard await retries(after: outcome, attempt: attempt) else { return try outcome.get() }
        }
    }

    /// One try with no retry, for a fetch other requests may wait for too: cut at neither this request's deadline nor
    /// its page timeout (the page cache cancels the fetch when the last request waiting for it gives up, each at its
    /// own); its waiters' page times start as it is sent, after the origin's budget.
    package func attempt(_ request: UpstreamRequest, maxBodyBytes: Int, flight: FlightDeadline) async -> Result<UpstreamResponse, UpstreamError> {
        // With no deadline among the waiters, the origin's budget is waited for until this request's own.
        await sendWithinBudget(
            request, timeout: FlightDeadline.tryBackstop, maxBodyBytes: maxBodyBytes, deadline: flight.instant ?? until, shared: flight)
    }

    /// Whether this request tries again after `outcome` (its `attempt`th try, its own or one it waited for): takes a
    /// retry from the budget and waits before returning true; false when the outcome is final, the budget or the time
    /// is spent, or the wait was cancelled.
    package func retries(after outcome: Result<UpstreamResponse, UpstreamError>, attempt: Int) async -> Bool {
        // The budget refused: waiting for it would pass the deadline, so no retry can help.
        if case .failure(let error) = outcome, case .rateLimited = error { return false }
        guard let wait = retryWait(after: outcome, attempt: attempt), takeRetry(waiting: wait) else { return false }
        do {
            try await clock.sleep(for: wait)
        } catch {
            return false
        }
        return true
    }

    /// One attempt, after waiting for the origin's budget until `deadline`; the answer's rate-limit fields go back to
    /// the budget. The attempt ends at `deadline` too, unless it is `shared` by a collapsed fetch (told as it is sent).
    private func sendWithinBudget(
        _ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int, deadline: ContinuousClock.Instant, shared: FlightDeadline? = nil
    ) async -> Result<UpstreamResponse, UpstreamError> {
        let cut = shared == nil
        let budget = budgets?.budget(for: request.url.origin.description)
        let permit: OriginBudget.Permit?
        do {
            permit = try await budget?.acquire(partition: OriginBudget.partition(of: request.headers, url: request.url), deadline: deadline)
        } catch {
            return .failure(error)
        }
        // The budget's wait counts against this attempt's time.
        let left = deadline - clock.now()
        guard left > .zero || !cut else {
            if let budget, let permit { await budget.finish(permit, status: nil, headers: HTTPHeaders()) }
            return .failure(.timedOut(origin: request.url.origin.description))
        }
        shared?.trySent()
        let outcome: Result<UpstreamResponse, UpstreamError>
        do {
            outcome = .success(try await base.send(request, timeout: cut ? min(timeout, left) : timeout, maxBodyBytes: maxBodyBytes))
        } catch {
            outcome = .failure(error)
        }
        if let budget, let permit {
            let answer = try? outcome.get()
            await budget.finish(permit, status: answer?.status.code, headers: answer?.headers ?? HTTPHeaders())
        }
        return outcome
    }

    /// The wait before another try, or nil when this outcome is final.
    private func retryWait(after outcome: Result<UpstreamResponse, UpstreamError>, attempt: Int) -> Duration? {
        switch outcome {
        case .failure(let error):
            return error.isRetryable ? policy.backoff(attempt: attempt, random: random()) : nil
        case .success(let response):
            let status = response.status.code
            let rateLimited = status == 403 && RateLimitAdvice.isExhausted(response.headers)
            guard RetryPolicy.retries(status: status) || rateLimited else { return nil }
            if let advised = RateLimitAdvice.wait(in: response.headers, now: clock.wallNow()) {
                return advised <= policy.maxServerDelay ? advised : nil
            }
            return rateLimited ? nil : policy.backoff(attempt: attempt, random: random())
        }
    }

    /// Takes one retry from the budget if the wait ends before the deadline.
    private func takeRetry(waiting wait: Duration) -> Bool {
        guard clock.now() + wait < until else { return false }
        let granted = remaining.withLock { left -> Bool in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        if granted { retried.withLock { $0 += 1 } }
        return granted
    }
}

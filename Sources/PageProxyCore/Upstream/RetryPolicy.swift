/// When and how long to wait before asking an upstream again.
///
/// Connection errors, timeouts, 5xx and 429 are retried with exponential backoff and full jitter (AWS's
/// "Exponential Backoff And Jitter"); a `Retry-After` or an exhausted rate limit says how long to wait instead.
/// A client request has a budget of retries across all its pages, and no wait may end past its deadline.
package struct RetryPolicy: Sendable {
    /// Retries allowed for one client request, across all its pages.
    package var budget: Int
    package var baseDelay: Duration = .milliseconds(100)
    package var maxDelay: Duration = .seconds(5)
    /// The longest `Retry-After` (or rate-limit reset) PageProxy waits out; a longer one ends the walk with the error.
    package var maxServerDelay: Duration = .seconds(30)

    package init(budget: Int) {
        self.budget = budget
    }

    /// Statuses worth another try: the server's trouble or its rate limit (RFC 9110 §15.6, RFC 6585 §4).
    package static let retryableStatuses: Set<Int> = [429, 500, 502, 503, 504]

    /// The backoff before retry number `attempt` (1-based): a uniformly random wait in [0, min(max, base · 2^(attempt-1))].
    package func backoff(attempt: Int, random: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 20)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * max(0, min(1, random))
    }
}

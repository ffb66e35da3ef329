/// When and how long to wait before asking an upstream again.
///
/// Connection errors, timeouts, 5xx and 429 are retried with exponential backoff and full jitter (AWS's
/// "Exponential Backoff And Jitter"); a `Retry-After` or an exhausted rate limit says how long to wait instead.
/// A walk (one client request, in the server) has a budget of retries across all its pages, and no wait may end
/// past its deadline.
public struct RetryPolicy: Sendable, Equatable {
    /// Retries allowed for one walk, across all its pages; 0 never retries.
    public var budget: Int
    /// The ceiling of the first backoff; each further retry doubles it, up to `maxDelay`.
    public var baseDelay: Duration
    /// The largest backoff between two tries.
    public var maxDelay: Duration
    /// The longest `Retry-After` (or rate-limit reset) PageProxy waits out; a longer one ends the walk with the error.
    public var maxServerDelay: Duration

    /// A policy; the defaults are those of a PageProxy route with no `retries` setting.
    /// - Parameters:
    ///   - budget: retries per walk; 3 by default.
    ///   - baseDelay: the first backoff's ceiling; 100 ms by default.
    ///   - maxDelay: the largest backoff; 5 s by default.
    ///   - maxServerDelay: the longest wait an upstream may ask for; 30 s by default.
    public init(
        budget: Int = 3, baseDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(5),
        maxServerDelay: Duration = .seconds(30)
    ) {
        self.budget = budget
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxServerDelay = maxServerDelay
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

/// When and how long to wait before asking an upstream again.
///
/// Connection errors, timeouts, 408, 429 and every 5xx but 501 and 505 (`retries(status:)`) are retried with
/// exponential backoff and full jitter (AWS's "Exponential Backoff And Jitter"); a `Retry-After` or an exhausted rate
/// limit says how long to wait instead.
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

    /// Whether an upstream status is worth another try: a 408 (the server gave up waiting, RFC 9110 §15.5.9), a 429
    /// (its rate limit, RFC 6585 §4), and every 5xx (its trouble, RFC 9110 §15.6; CDNs' 520–524 too) but 501 and 505,
    /// which say it will never do what was asked (§15.6.2, §15.6.6) (review24 P16: only 500, 502–504 were).
    package static func retries(status: Int) -> Bool {
        switch status {
        case 408, 429: true
        case 501, 505: false
        case 500...599: true
        default: false
        }
    }

    /// The backoff before retry number `attempt` (1-based): a uniformly random wait in [0, min(max, base · 2^(attempt-1))].
    package func backoff(attempt: Int, random: Double) -> Duration {
        let exponent = min(max(attempt - 1, 0), 20)
        let ceiling = min(maxDelay, baseDelay * (1 << exponent))
        return ceiling * max(0, min(1, random))
    }
}

/// One request the upstream was sent for a page (a try), and how it ended: told once, by the collapsed fetch that
/// sent it (`CachingPageSource.fetch`'s `onTry`, the one of the request that led it), however many requests waited for
/// it and whatever each of them then served (a stale page, a retry's answer), and also when the request that sent it
/// has left while others still wait (attack15 M1 and fix21's leftovers: `/metrics` counts what the upstream received).
package struct UpstreamTry: Sendable {
    /// The upstream's status; or why no answer came: `.cancelled` when every request waiting for it left, `.timedOut`
    /// when it was cut after one of them had run out of time (`FlightDeadline.outlivedAWaiter`).
    package var result: Result<Int, UpstreamError>
    /// From the try's start (its wait for the origin's budget included) to its end.
    package var duration: Duration
    /// The request that led the fetch had tried the page before: a retry.
    package var isRetry: Bool
    /// It carried a stored page's validators (`If-None-Match`, `If-Modified-Since`): a 304 to it was asked for.
    package var isConditional: Bool

    package init(result: Result<Int, UpstreamError>, duration: Duration, isRetry: Bool, isConditional: Bool = false) {
        self.result = result
        self.duration = duration
        self.isRetry = isRetry
        self.isConditional = isConditional
    }

    /// Told of each try a fetch sends.
    package typealias Report = @Sendable (UpstreamTry) -> Void
}

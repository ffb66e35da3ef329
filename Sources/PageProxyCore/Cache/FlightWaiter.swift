/// One request waiting for a collapsed fetch (`FetchCollapser`), and when its own page timeout ends: counted from the
/// moment the fetch's one try is sent, or from the moment the request joined it if the try was out already. That is
/// when the request's own try would have ended had it been alone: it stops waiting then and counts a timed-out try
/// (`CachingPageSource`), while the try goes on for the others. A try therefore lives until the last of its waiters'
/// page times ends (or their deadlines pass): it has the longest page timeout among them, and a request that joins
/// while it runs can lengthen it (issue 13: a joiner whose route has the longer page timeout was failed at the
/// starter's, and the upstream saw the page twice).
package final class FlightWaiter: Sendable {
    private let pageTimeout: Duration
    private let clock: PageProxyClock
    private let end = OnceValue<ContinuousClock.Instant>()

    package init(pageTimeout: Duration, clock: PageProxyClock) {
        self.pageTimeout = pageTimeout
        self.clock = clock
    }

    /// The try this request waits for is being sent (or was out when it joined): its page time runs from now.
    /// - Returns: when it ends; nil when it was started before.
    @discardableResult
    func trySent() -> ContinuousClock.Instant? {
        guard !end.isGiven else { return nil }
        let ends = clock.now() + pageTimeout
        end.give(ends)
        return ends
    }

    /// When this request's page time ends, once the try is sent; nil if the caller is cancelled before.
    package func pageTimeEnd() async -> ContinuousClock.Instant? {
        await end.value()
    }
}

import Foundation

/// The process's one notion of time, injected wherever a test must control it: the monotonic clock for deadlines,
/// waits and budgets (`now`, `sleep`), and the wall clock for what upstreams say in dates (`Retry-After` as an
/// HTTP date, `X-RateLimit-Reset` in epoch seconds, the mock's rate-limit windows, the page cache's freshness, which
/// outlives the process and so is a date, and the merged answers' `Cache-Control`).
///
/// The socket layer's deadlines are instants of this monotonic clock too (`ContinuousClock.Instant`, read directly:
/// the kernel's waits cannot be virtual). Left on their own clock, by design: the durations measured for logs and
/// metrics (`ContinuousClock`: a test has nothing to move there).
package struct PageProxyClock: Sendable {
    package var now: @Sendable () -> ContinuousClock.Instant
    package var wallNow: @Sendable () -> Date
    /// Suspends until the instant; throws when the waiting task is cancelled.
    package var sleep: @Sendable (ContinuousClock.Instant) async throws -> Void

    package init(
        now: @escaping @Sendable () -> ContinuousClock.Instant, wallNow: @escaping @Sendable () -> Date,
        sleep: @escaping @Sendable (ContinuousClock.Instant) async throws -> Void
    ) {
        self.now = now
        self.wallNow = wallNow
        self.sleep = sleep
    }

    /// Suspends for `duration` on this clock.
    package func sleep(for duration: Duration) async throws {
        try await sleep(now() + duration)
    }

    /// The process's clocks; its sleeps give their timers back when cancelled (`CancellableSleep`).
    package static let system = PageProxyClock(
        now: { .now }, wallNow: Date.init, sleep: { try await CancellableSleep.sleep(until: $0) })

    /// The process's monotonic clock with a wall clock of the caller's (a test that fixes the date).
    package static func wall(_ wallNow: @escaping @Sendable () -> Date) -> PageProxyClock {
        var clock = system
        clock.wallNow = wallNow
        return clock
    }
}

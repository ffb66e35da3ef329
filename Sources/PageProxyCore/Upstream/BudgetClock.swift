import Foundation

/// The time an `OriginBudget` reads and waits on: the monotonic clock for its waits, the wall clock to turn an
/// upstream's epoch-second reset (`X-RateLimit-Reset`) into one of those instants. Tests inject both.
package struct BudgetClock: Sendable {
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

    /// The process's clocks.
    package static let system = BudgetClock(
        now: { .now }, wallNow: Date.init, sleep: { try await Task.sleep(until: $0, clock: .continuous) })
}

import Foundation
import PageProxyCore
import Synchronization

/// The process's monotonic time, which a test may also move on at once (`advance`), as the `PageProxyClock` of a
/// whole stack: its waits end in real time as usual, or as soon as a move passes their instant. A test then ends a
/// page time exactly after the step it must follow, however slowly the machine runs, where a short real timeout
/// raced that step (a loaded machine took longer than the timeout to get there).
final class AdvancingClock: Sendable {
    private let offset = Mutex(Duration.zero)

    var now: ContinuousClock.Instant { .now + offset.withLock { $0 } }

    func advance(by duration: Duration) {
        offset.withLock { $0 += duration }
    }

    var clock: PageProxyClock {
        PageProxyClock(now: { self.now }, wallNow: Date.init, sleep: { try await self.sleep(until: $0) })
    }

    /// Sleeps in short real steps, looking at the moved time after each (a move wakes it within a step).
    private func sleep(until instant: ContinuousClock.Instant) async throws {
        while case let left = instant - now, left > .zero {
            try await Task.sleep(for: min(left, .milliseconds(10)))
        }
    }
}

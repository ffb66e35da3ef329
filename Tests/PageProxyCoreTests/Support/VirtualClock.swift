import Foundation
import Synchronization

@testable import PageProxyCore

/// Virtual time for an `OriginBudget`: a sleep records its wake-up and moves the clock there at once, so that tests
/// see every wait the budget asks for without waiting.
final class VirtualClock: Sendable {
    private struct State {
        var offset: Duration = .zero
        var sleeps: [Duration] = []
    }

    private let start = ContinuousClock.now
    private let wallStart = Date(timeIntervalSince1970: 1_700_000_000)
    private let state = Mutex(State())

    var now: ContinuousClock.Instant { start + state.withLock { $0.offset } }
    var wallNow: Date { wallStart.addingTimeInterval(state.withLock { $0.offset }.timeInterval) }
    /// How long each sleep was for, from the clock's time when it began.
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func advance(by duration: Duration) {
        state.withLock { $0.offset += duration }
    }

    var budgetClock: BudgetClock {
        BudgetClock(
            now: { self.now }, wallNow: { self.wallNow },
            sleep: { until in
                try Task.checkCancellation()
                self.state.withLock { state in
                    let target = until - self.start
                    state.sleeps.append(target - state.offset)
                    state.offset = max(state.offset, target)
                }
                await Task.yield()
            })
    }
}

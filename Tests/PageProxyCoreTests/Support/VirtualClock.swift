import Foundation
import Synchronization

@testable import PageProxyCore

/// Virtual time (a `PageProxyClock`) for an `OriginBudget` or a `RetryingTransport`: a sleep records its wake-up and
/// moves the clock there at once, so that tests see every wait asked for without waiting, and deadlines pass as the
/// waits add up.
final class VirtualClock: Sendable {
    private struct State {
        var offset: Duration = .zero
        var sleeps: [Duration] = []
    }

    private let start = ContinuousClock.now
    private let wallStart: Date
    private let state = Mutex(State())

    init(wallStart: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        self.wallStart = wallStart
    }

    var now: ContinuousClock.Instant { start + state.withLock { $0.offset } }
    var wallNow: Date { wallStart.addingTimeInterval(state.withLock { $0.offset }.timeInterval) }
    /// How long each sleep was for, from the clock's time when it began.
    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    func advance(by duration: Duration) {
        state.withLock { $0.offset += duration }
    }

    var clock: PageProxyClock {
        PageProxyClock(
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

extension PageProxyClock {
    /// The system's clock whose waits return at once (retries with no time between them).
    static var noWaits: PageProxyClock {
        var clock = PageProxyClock.system
        clock.sleep = { _ in try Task.checkCancellation() }
        return clock
    }
}

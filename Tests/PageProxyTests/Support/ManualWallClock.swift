import Foundation
import PageProxyCore
import Synchronization

/// A wall clock that moves only when a test says so, as the `PageProxyClock` the code under test reads (its
/// monotonic side stays the process's: deadlines and waits are real).
final class ManualWallClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000.25)) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }
    func advance(seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }

    var clock: PageProxyClock { .wall { self.now } }
}

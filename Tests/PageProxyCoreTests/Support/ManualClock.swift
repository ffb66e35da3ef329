import Foundation
import Synchronization

@testable import PageProxyCore

/// A wall clock that moves only when a test says so.
final class ManualClock: Sendable {
    private let current: Mutex<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = Mutex(start)
    }

    var now: Date { current.withLock { $0 } }

    func advance(by duration: Duration) {
        current.withLock { $0 = $0.addingTimeInterval(duration.timeInterval) }
    }

    /// A closure for the code under test.
    var source: @Sendable () -> Date { { self.now } }

    /// The process's clock with this wall side, for the code under test.
    var clock: PageProxyClock { .wall(source) }
}

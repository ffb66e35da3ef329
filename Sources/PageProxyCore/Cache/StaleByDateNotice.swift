import Synchronization

/// Counts the upstream pages whose `Date` alone made them stale on arrival (`CacheFreshness.isStaleByDateAlone`:
/// an upstream clock behind this one by more than the pages' lifetime; review9 G3: nothing of such an upstream was
/// cached, silently), and tells `tell` about it once per origin per `interval`, not once per page.
package final class StaleByDateNotice: Sendable {
    private struct State {
        var count = 0
        /// When each origin was last told about.
        var told: [String: ContinuousClock.Instant] = [:]
    }

    /// The most origins remembered: past it the memory is started again (an origin may then be told about early).
    static let maxOrigins = 1_024

    private let state = Mutex(State())
    private let interval: Duration
    private let tell: @Sendable (_ origin: String, _ behind: Duration) -> Void

    /// - Parameter tell: given the origin and how far its `Date` was behind this clock.
    package init(interval: Duration = .seconds(600), tell: @escaping @Sendable (_ origin: String, _ behind: Duration) -> Void) {
        self.interval = interval
        self.tell = tell
    }

    /// How many pages were stale on arrival by their `Date` alone.
    package var count: Int { state.withLock { $0.count } }

    /// Counts a page from `origin` whose `Date` was `behind` this clock, and tells `tell` when that origin was not
    /// told about in the last `interval`.
    package func note(origin: String, behind: Duration, at now: ContinuousClock.Instant) {
        let tells = state.withLock { state -> Bool in
            state.count += 1
            if let last = state.told[origin], now - last < interval { return false }
            if state.told[origin] == nil, state.told.count >= Self.maxOrigins { state.told.removeAll() }
            state.told[origin] = now
            return true
        }
        if tells { tell(origin, behind) }
    }
}

import Synchronization

/// Tells about a cache volume found full at most once per `interval`, with how many times it was found full since
/// the last time it told (attack12 U3: a volume smaller than the working set logged a warning about every 70 page
/// writes, since a write succeeds between two evictions; at 100 requests a second, ~1,400 lines a second).
///
/// `DiskStore` reports each time a write finds the volume full after one succeeded (an episode), and evicts the oldest
/// entries each time: the count is of episodes (the log calls it `evictions`); a concurrent write that finds the volume
/// full during an episode evicts too, but is not reported again (review14 F5). Episodes held back after the last line are counted in the next
/// one, whenever an episode comes a minute or more after that line (none comes while the volume has room).
package final class VolumeFullNotice: Sendable {
    private struct State {
        /// Episodes since the last time `tell` was called, this one included once it is told.
        var untold = 0
        var lastTold: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let interval: Duration
    private let tell: @Sendable (_ reason: String, _ evictions: Int) -> Void

    /// - Parameter tell: given the file system's reason and the evictions since it was last called (at least 1).
    package init(interval: Duration = .seconds(60), tell: @escaping @Sendable (_ reason: String, _ evictions: Int) -> Void) {
        self.interval = interval
        self.tell = tell
    }

    /// Counts an episode that began at `now`, and tells `tell` when it did not in the last `interval`.
    package func note(_ reason: String, at now: ContinuousClock.Instant) {
        let evictions = state.withLock { state -> Int? in
            state.untold += 1
            if let last = state.lastTold, now - last < interval { return nil }
            state.lastTold = now
            defer { state.untold = 0 }
            return state.untold
        }
        if let evictions { tell(reason, evictions) }
    }
}

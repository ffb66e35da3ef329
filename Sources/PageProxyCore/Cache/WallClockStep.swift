import Foundation

/// The times the cache keeps (when a page was stored, when a merged answer was made), read against a wall clock that
/// may have stepped back since: NTP correcting a fast clock, a VM snapshot restored. One rule for every one of them.
package enum WallClockStep {
    /// How far after `now` a kept time may be and still count as made now: times taken a moment apart on two
    /// threads (a lookup's `now`, read just before another request kept its answer). Far below any lifetime in whole
    /// seconds, so that it never lengthens a `max-age`.
    package static let tolerance: TimeInterval = 0.5

    /// Whether `kept` is after `now` by more than `tolerance`: the clock was ahead when it was kept, or has stepped back
    /// since. Its age cannot be told, so it is never fresh: a page is revalidated, an answer is not used (attack13 M1:
    /// pages stored a day ahead were fresh for a day; attack17 M2: the memo kept answering with `max-age` ≈ the skew).
    package static func isAhead(_ kept: Date, of now: Date) -> Bool {
        kept.timeIntervalSince(now) > tolerance
    }
}

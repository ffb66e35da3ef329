import Synchronization

/// A count that never passes a limit: `take(_:)` adds an amount only if the total stays within the limit, and
/// `giveBack(_:)` subtracts it. One atomic, no lock, so giving back (at the end of every send, in a `deinit`) never
/// waits. What the process's bounds are made of: held entry files (`HeldEntryFileBudget`), kept page keys
/// (`CacheKeyPages.Budget`), merged answers past their allowance (`HeldBytesBudget`), the memo's charges
/// (`MergedAnswerCharge.Ledger`).
package final class BoundedCount: Sendable {
    /// The most the count holds, unless a taker names its own limit.
    package let limit: Int
    private let taken = Atomic<Int>(0)

    package init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// The total taken now.
    package var count: Int { taken.load(ordering: .relaxed) }

    /// Adds `amount` when the total then stays within `limit` (the count's own unless given); false, adding nothing,
    /// when it would not. The total never passes it, not even for a moment (another taker is never refused for an
    /// amount that was only being tried).
    package func take(_ amount: Int, within limit: Int? = nil) -> Bool {
        let limit = limit ?? self.limit
        var current = taken.load(ordering: .relaxed)
        while amount <= limit - current {  // not `current + amount`: a limit of `.max` would overflow
            let (exchanged, found) = taken.compareExchange(expected: current, desired: current + amount, ordering: .relaxed)
            if exchanged { return true }
            current = found
        }
        return false
    }

    /// Gives back `amount` taken earlier. Never below zero: giving back more than was taken (a mistake) makes no room
    /// past the limit.
    package func giveBack(_ amount: Int) {
        var current = taken.load(ordering: .relaxed)
        while true {
            let (exchanged, found) = taken.compareExchange(expected: current, desired: max(0, current - amount), ordering: .relaxed)
            if exchanged { return }
            current = found
        }
    }
}

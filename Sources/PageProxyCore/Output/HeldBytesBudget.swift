/// Bytes that merged answers past their own in-memory allowance may keep in memory, shared by a whole process.
///
/// Writing an answer just past the 1 MiB allowance to a temporary file and reading it back cost more than the walk
/// that made it (issue 13: a 1.1 MB answer was 0.2× nginx against 0.7× for 1 MB). Answers that outgrow their
/// allowance borrow from this budget instead while it lasts, and spool once it does not: memory stays bounded by
/// the allowance per answer plus this budget, whatever the totals.
package final class HeldBytesBudget: Sendable {
    private let taken: BoundedCount

    package init(capacity: Int) {
        taken = BoundedCount(limit: capacity)
    }

    /// The bytes the budget holds in all.
    package var capacity: Int { taken.limit }

    /// Takes `bytes` from the budget; false (and nothing taken) when fewer are left.
    package func reserve(_ bytes: Int) -> Bool { taken.take(bytes) }

    /// Gives back `bytes` taken earlier by `reserve(_:)`.
    package func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        taken.giveBack(bytes)
    }

    /// The bytes not taken now.
    package var availableBytes: Int { capacity - taken.count }
}

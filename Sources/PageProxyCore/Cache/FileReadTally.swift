import Synchronization

/// The entry files one walk's own lookups have read (review18 R5): the store's `fileReadCount` is every request's, so a
/// walk through entries in memory compared with it was told it read files whenever another request did.
package final class FileReadTally: Sendable {
    private let count = Atomic(0)

    package init() {}

    /// Counts one lookup that reads an entry's file (or finds it not in memory and leaves it for a read off the pool).
    package func add() { count.add(1, ordering: .relaxed) }

    package var value: Int { count.load(ordering: .relaxed) }
}

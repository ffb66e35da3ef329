import Synchronization

/// Set once the walk that asked for pages to be read ahead has ended: its reads still queued are skipped, and one
/// under way stops at its next page (issue 13, sixth pass: a client that went away left a walk's reads queued, and
/// they took the read-ahead thread, and the store's lock, from the walks still running).
package final class ReadAheadCancellation: Sendable {
    private let ended = Atomic<Bool>(false)

    package init() {}

    /// The walk has ended: nothing more is read for it.
    package func cancel() { ended.store(true, ordering: .relaxed) }

    package var isCancelled: Bool { ended.load(ordering: .relaxed) }
}

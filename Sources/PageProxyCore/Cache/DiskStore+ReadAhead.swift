import Synchronization

/// Entries read ahead of the lookups that will want them, and the bound on what is held so.
extension DiskStore {
    /// Reads and verifies the entries of `keys` that are neither in memory nor read ahead already, and holds them
    /// for the lookups that will want them (issue 13: a walk through entries after a restart read each file on its
    /// own thread, one after another). Blocks on the disk: run it off the cooperative pool, on a thread that is not
    /// the walk's, so that the walk's lookups find the entries read.
    ///
    /// Nothing here is a use: the LRU order moves when a lookup takes an entry. A file whose next hit would refresh
    /// its time is refreshed as it is read (through its descriptor), so that the lookup need not. An entry rewritten
    /// or removed before a lookup takes it (its generation moved on) is dropped, never served; one another process
    /// renamed a version over is seen by the lookup that takes it, by the inode read (`noteFileInode`), as for a file
    /// the lookup reads itself (no `stat` of the path after the read: issue 13, eighteenth pass). A torn
    /// or corrupt file is left for the lookup to find, and remove. At most `readAheadLimit` entries and
    /// `readAheadByteLimit` bytes are held. When they are full, the read-ahead stops: what is held is what the walks
    /// want first, and what they asked for last is wanted last (dropping the oldest would drop the pages a walk
    /// reaches next, and make it read them again). Only entries no lookup took while `readAheadLimit` × 2 others
    /// ran (left by a walk that ended) make room.
    /// - Parameters:
    ///   - unusedSince: a `useCount` taken when the walk asked: an entry looked up since (the walk got there first),
    ///     or one whose key in `keys` follows such an entry (the walk is next), is not read, nor are the
    ///     `overtakenMargin` keys after it (the walk is about to read them).
    ///   - keep: whether an entry read is worth holding (the caller's freshness rule: a stale entry is read again by
    ///     the fetch that revalidates it, so holding it would only read it twice).
    ///   - isCancelled: asked before each key: true (the walk that asked has ended) stops the read-ahead there.
    ///   - leavesBodyFor: as `lookup`'s: an entry not hit since the start whose stored scan is for it is held with its
    ///     body left in its file (taken only by a lookup that leaves bodies for the same signature).
    package func readAhead(
        _ keys: some Sequence<CacheKey>, unusedSince: UInt64 = .max, keep: (CacheEntry) -> Bool = { _ in true },
        until isCancelled: () -> Bool = { false }, leavesBodyFor: UInt64? = nil
    ) {
        // Keys left to a walk that overtook the read-ahead (see `overtakenMargin`).
        var leftToTheWalk = 0
        // The key asked before this one: a walk that has just looked it up looks this one up next.
        var previous: CacheKey?
        for key in keys {
            defer { previous = key }
            if isCancelled() { return }
            if leftToTheWalk > 0 {
                leftToTheWalk -= 1
                continue
            }
            let wanted: ReadAheadStep = withStateReleasing { state in
                state.readAheadAsked += 1
                guard state.disabledReason == nil, let record = state.records[key] else { return .skip }
                guard record.lastUse <= unusedSince else { return .overtaken }
                // The walk has caught up (it took the entry before this one since it asked): this one it is about to
                // look up, and would read too while the read-ahead reads it, so it is left to the walk with the margin
                // after it (issue 13, eleventh pass: 45–129 of 501 files read twice a first read-back after a restart).
                if let previous, let before = state.records[previous], before.lastUse > unusedSince { return .overtaken }
                guard state.copies[key] == nil, !state.readAhead.holds(key), record.size <= readAheadByteLimit else { return .skip }
                // Kept with its held file for this very walk's lookups: nothing to read.
                if let leavesBodyFor, state.held[key]?.entry.scan?.signature == leavesBodyFor { return .skip }
                guard state.readAhead.hasRoom(for: record.size, byteLimit: readAheadByteLimit, useCounter: state.useCounter, released: &state.released)
                else { return .full }
                guard let entries = Self.entryDirectory(&state) else { return .skip }
                return .read(
                    generation: record.generation, touch: record.hitsAfterNextUse(interval: touchInterval) >= touchInterval, entries: entries,
                    seen: record.hitsSinceTouch != nil)
            }
            guard case .read(let generation, let touch, let entries, let seen) = wanted else {
                if case .full = wanted { return }
                if case .overtaken = wanted { leftToTheWalk = Self.overtakenMargin }
                continue
            }
            // Held open for a lookup that sends from it (a merged answer; closed for any other when it takes it).
            // Its body left in its file only on the entry's first hit since the start: a lookup keeps an entry seen before
            // in memory, which needs its bytes.
            guard
                let file = try? readEntryFile(
                    key, in: entries, touch: touch, wait: .mayWaitForDisk, holdsFile: true, leavesBodyFor: seen ? nil : leavesBodyFor) ?? nil,
                let entry = try? file.entry(for: key),
                keep(entry)
            else { continue }
            withStateReleasing { state in
                guard state.records[key]?.generation == generation, state.copies[key] == nil, !state.readAhead.holds(key),
                    state.readAhead.hasRoom(for: entry.bodyCount, byteLimit: readAheadByteLimit, useCounter: state.useCounter, released: &state.released)
                else { return }
                state.readAhead.hold(
                    ReadAhead(entry: entry, generation: generation, inode: file.inode, touched: touch, heldAtUse: state.useCounter), for: key)
            }
        }
    }

    /// What `readAhead` does with a key: reads it (the version it wants, whether to refresh its file's time), skips
    /// it, or stops (nothing more fits).
    private enum ReadAheadStep {
        case read(generation: UInt64, touch: Bool, entries: HeldDirectory, seen: Bool)
        case skip
        /// Looked up since the read-ahead was asked, or the key before it was: the walk got there first, or is next.
        case overtaken
        case full
    }

    /// How many keys after one the walk got to first the read-ahead leaves to the walk: reading the very next one, it
    /// would race the walk for it (both threads read the same file: 0–59 of 501 entries a first read-back, issue 13,
    /// ninth pass); from past them on, its entries are there when the walk comes.
    static let overtakenMargin = 2
}

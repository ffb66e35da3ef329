import Synchronization

/// Copies kept in memory and entries kept with their held files: made, used, dropped.
extension DiskStore {
    /// Keeps a verified entry in memory, unless the file changed since it was read: rewritten or removed by this
    /// process (its generation moved on). Another process's version is seen by the inode the caller read
    /// (`noteFileInode`, before this: one the record does not know is compared with the path's), and once the copy is
    /// stale (`fileWasReplaced`).
    ///
    /// No `stat` of the path after the read (issue 13, eighteenth pass: one system call of five an entry read after a
    /// restart): a rename by another process between the read's `open` and now is no different from one just after
    /// the lookup, which no check here could see either; the version kept is the one at the path when it was opened,
    /// with that inode on its record, so the rename is found by the same checks as any later one.
    func remember(_ entry: CacheEntry, for key: CacheKey, generation: UInt64) {
        // A body left in its file is no copy in memory (issue 13, fourteenth pass): never kept here.
        guard entry.bodyInFile == nil, entry.body.count <= memoryLimit else { return }
        // A copy kept in memory holds no descriptor (the budget is for answers being sent).
        let entry = entry.withoutFile
        // The copies dropped to make room are freed after the lock (the epoll loop may be waiting for it).
        withStateReleasing { state in
            guard state.records[key]?.generation == generation else { return }
            keepCopy(entry, for: key, &state)
        }
    }

    /// `remember`'s keep, under the caller's hold of the lock, of an entry whose record still names the version read:
    /// the least recently used copies make room, not the whole map (a walk bigger than the bound dropped the hot entries
    /// of every other route each time it passed it: issue 13, sixth pass), at most `evictionBatch` a hold, as an
    /// eviction (a large page among many small copies is kept by a later read, once enough have gone: review, thousands
    /// dropped in one hold of the loop's lock). Those dropped are freed after the lock (`State.released`).
    /// With `asOldest`, the copy is kept as the least recently used (`DiskStore.warmUp`).
    func keepCopy(_ entry: CacheEntry, for key: CacheKey, asOldest: Bool = false, _ state: inout State) {
        guard entry.bodyInFile == nil, entry.file == nil, entry.body.count <= memoryLimit, state.copies[key] == nil else { return }
        let (use, dropped) = state.copies.keep(entry, for: key, limit: memoryLimit, batch: evictionBatch, asOldest: asOldest)
        for old in dropped {
            state.records[old.key]?.memoryUse = nil
            state.released.append(old.entry)
        }
        if let use { state.records[key]?.memoryUse = use }
    }

    /// Moves `key` to the most recently used end of the records' order (and of the copies in memory, if it has one),
    /// putting it back if an eviction had taken it out.
    static func markUsed(_ key: CacheKey, _ record: inout Record, _ state: inout State) {
        if let use = record.use { state.recency.moveToNewest(use) } else { record.use = state.recency.insertNewest(key) }
        if let use = record.memoryUse { state.copies.touch(use) }
    }

    /// Keeps an entry verified with its body left in its held file (`State.held`) for the lookups that leave bodies for
    /// its scan, unless the record moved on since it was read; the least recently used let go to make room (their
    /// descriptors closed after the lock).
    func keepHeld(_ entry: CacheEntry, for key: CacheKey, generation: UInt64) {
        withStateReleasing { state in
            guard state.records[key]?.generation == generation else { return }
            keepWithFile(entry, for: key, generation: generation, &state)
        }
    }

    /// `keepHeld`'s keep, under the caller's hold of the lock, of an entry whose record names `generation`; the entries
    /// let go to make room have their descriptors closed after the lock (`State.released`).
    func keepWithFile(_ entry: CacheEntry, for key: CacheKey, generation: UInt64, _ state: inout State) {
        let limit = heldEntryLimit
        guard entry.bodyInFile != nil, limit > 0, state.held[key] == nil else { return }
        while state.held.count >= limit, let oldest = state.heldRecency.removeOldest() {
            if let old = state.held.removeValue(forKey: oldest) { state.released.append(old.entry) }
        }
        state.held[key] = HeldEntry(entry: entry, generation: generation, use: state.heldRecency.insertNewest(key))
    }

    /// Lets go of `key`'s entry kept with its held file (the descriptor closes when the last answer sending from it ends).
    static func dropHeld(_ key: CacheKey, _ state: inout State) {
        guard let old = state.held.removeValue(forKey: key) else { return }
        state.heldRecency.remove(old.use)
        state.released.append(old.entry)
    }

    static func dropMemory(_ key: CacheKey, _ state: inout State) {
        dropHeld(key, &state)
        if state.copies.drop(key, use: state.records[key]?.memoryUse) != nil { state.records[key]?.memoryUse = nil }
        if let old = state.readAhead.drop(key) { state.released.append(old.entry) }
    }
}

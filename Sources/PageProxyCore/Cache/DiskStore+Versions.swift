import Synchronization

/// Which version of an entry a record names: its generation and inode, another process's file adopted or noticed, a
/// record dropped, every version forgotten.
extension DiskStore {
    /// The version of each of `keys` the index holds now, and the inode of its file when this process knows it; nil when
    /// one has no entry (`AnswerEntries`: an answer's manifest names files, and is checked against these).
    package func versions(of keys: [CacheKey]) -> [(stamp: PageStamp, inode: UInt64?)]? {
        state.withLock { state in
            guard state.disabledReason == nil else { return nil }
            var versions: [(stamp: PageStamp, inode: UInt64?)] = []
            versions.reserveCapacity(keys.count)
            for key in keys {
                guard let record = state.records[key] else { return nil }
                versions.append((PageStamp(key: key, generation: record.generation), record.inode))
            }
            return versions
        }
    }

    func forget(_ key: CacheKey) {
        withStateReleasing { state in _ = Self.dropRecord(key, &state) }
    }

    /// Forgets `key`'s record and memory copy; a removal is a change (stamps of it are no longer current).
    /// - Returns: whether there was a record.
    @discardableResult
    static func dropRecord(_ key: CacheKey, _ state: inout State) -> Bool {
        dropMemory(key, &state)
        guard let record = state.records.removeValue(forKey: key) else { return false }
        if !state.answerKeys.isEmpty { state.answerKeys.remove(key) }
        if let use = record.use { state.recency.remove(use) }
        state.totalBytes -= record.size
        state.changeCounter += 1
        return true
    }

    /// attack6 F1 — a file read with another inode than the one this process last wrote or read for `key` was renamed
    /// into place by another process: a change of the page, as a write of this process's own is. Its record gets a
    /// new generation (answers stamped with the old one, the memo's, no longer match), and its copy in memory (the
    /// old version) is dropped. Returns the generation of the version read: `generation` when the file is the one
    /// known, or when this process wrote or removed the entry since the lookup began (the record is not the one read
    /// under: left as it is).
    ///
    /// The record takes the other file's size. Nil when the other inode is not the file at the entry's path now: the
    /// file was read through a directory that is no longer the cache directory (review9 B4: the old version, in a
    /// directory renamed away) or was renamed over again since. Its version is not known: it is not adopted, and the caller does not serve it. The path is
    /// looked at (one `lstat`, outside the lock) only when the inode is another, and not at all when the caller has
    /// (`atPath`). After such a nil the held directory is replaced when it is not the one at the store's path, so that
    /// the next lookup reads the current version rather than miss again until the next check (review10).
    func noteFileInode(
        _ key: CacheKey, _ inode: UInt64, readUnder generation: UInt64, atPath looked: (inode: UInt64, size: Int)? = nil
    ) -> UInt64? {
        let isOther = state.withLock { state -> Bool in
            guard let record = state.records[key], record.generation == generation else { return false }
            guard let known = record.inode, known != inode else {
                state.records[key]?.inode = inode
                return false
            }
            return true
        }
        guard isOther else { return generation }
        guard let file = looked ?? CacheFileSystem.inodeAndSize(path(for: key)), file.inode == inode else {
            if let held = state.withLock({ $0.entryDirectory }), !held.isCurrent { replaceEntryDirectory(held, keeping: key) }
            return nil
        }
        return withStateReleasing { state in
            guard let record = state.records[key], record.generation == generation, record.inode != inode else { return generation }
            Self.dropMemory(key, &state)
            state.changeCounter += 1
            state.records[key]?.inode = inode
            // The other process's file, at its own size (review9 G4: this process's record size was kept, and the
            // store's total drifted until the next scan).
            state.totalBytes += file.size - record.size
            state.records[key]?.size = file.size
            state.records[key]?.generation = state.changeCounter
            return state.changeCounter
        }
    }

    /// attack6 F4 — whether `key`'s file is no longer the one this process last wrote or read (another process
    /// renamed a newer version into place): then noted as `noteFileInode` does, so that the next lookup reads it.
    /// One `lstat`: for an entry about to be revalidated or served stale, whose copy in memory may be older than
    /// the file.
    package func fileWasReplaced(_ key: CacheKey) -> Bool {
        guard let file = CacheFileSystem.inodeAndSize(path(for: key)), let generation = state.withLock({ $0.records[key]?.generation }) else {
            return false
        }
        // The path's own inode and size: `noteFileInode` need not look again (review10: two `lstat`s where one does).
        return noteFileInode(key, file.inode, readUnder: generation, atPath: file) != generation
    }

    /// Indexes an entry another process wrote: the file with `inode`, looked at just before.
    func adopt(_ key: CacheKey, size: Int, inode: UInt64) {
        state.withLock { state in
            guard state.disabledReason == nil, state.records[key] == nil else { return }
            state.useCounter += 1
            state.changeCounter += 1
            state.records[key] = Record(
                size: size, lastUse: state.useCounter, generation: state.changeCounter, use: state.recency.insertNewest(key), inode: inode)
            state.totalBytes += size
        }
    }

    /// What `forgetVersions` dropped: the copies in memory (and kept with held files), and the entries read ahead.
    typealias ForgottenVersions = (memory: [CacheKey: CacheEntry], readAhead: [CacheKey: ReadAhead])

    /// The directory was unusable for a while: what it holds now may be other than what this process last saw (wiped,
    /// restored, rewritten by hand; and an upstream's newer version or `no-store` met meanwhile was not written —
    /// review15 R1). Every copy in memory and read ahead goes, and every record gets a new generation and an unknown
    /// inode: answers built on them (the merged-answer memo) find no stamp current, and the next lookup of each reads
    /// its file (a file gone is a miss). Returns what was dropped, for the caller to release outside the lock.
    static func forgetVersions(_ state: inout State, droppingRecords: Bool = false, but kept: CacheKey? = nil) -> ForgottenVersions {
        // The key being looked up or written is kept: its lookup goes on in the new directory (a miss drops it there).
        if droppingRecords { for key in Array(state.records.keys) where key != kept { dropRecord(key, &state) } }
        let dropped = (state.copies.dropAll().merging(state.held.mapValues(\.entry)) { copy, _ in copy }, state.readAhead.dropAll())
        state.held = [:]
        state.heldRecency = RecencyList()
        for key in Array(state.records.keys) {
            state.changeCounter += 1
            state.records[key]?.generation = state.changeCounter
            state.records[key]?.memoryUse = nil
            state.records[key]?.inode = nil
        }
        return dropped
    }
}

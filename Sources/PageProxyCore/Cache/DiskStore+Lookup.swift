import Dispatch
import Synchronization

/// Lookups: an entry found in memory, kept with its held file, read ahead or read from its file, and the directory
/// entry files are read under.
extension DiskStore {
    /// The entry for `key`, or nil. A torn, truncated or corrupted file is a miss and is removed.
    package func read(_ key: CacheKey) -> CacheEntry? { lookup(key)?.entry }

    /// The entry for `key` and the stamp of the version read, or nil; as `read`.
    ///
    /// The stamp is taken before the file is read, so a write racing with the read can only make it older than the
    /// bytes (an answer built from them is then dropped early), never newer.
    /// - Parameters:
    ///   - keepsFirstRead: keep an entry read from its file in memory even on its first hit since this process
    ///     started (the caller holds its bytes anyway: `CachePolicy.keepsFirstRead`).
    ///   - leavesBodyFor: the scan signature of a caller that sends bodies from their files (`CachePolicy.leavesBodiesFor`,
    ///     with `keepsFirstRead`): an entry read from its file on its first hit, whose stored scan is for it, is
    ///     verified through a reused buffer and its body left in the held file (`CacheEntry.bodyInFile`; issue 13,
    ///     fourteenth pass). Nil: every entry found has its body in memory.
    package func lookup(_ key: CacheKey, keepsFirstRead: Bool = false, leavesBodyFor: UInt64? = nil) -> (entry: CacheEntry, stamp: PageStamp)? {
        guard case .found(let entry, let stamp) = lookup(key, wait: .mayWaitForDisk, keepsFirstRead: keepsFirstRead, leavesBodyFor: leavesBodyFor)
        else { return nil }
        return (entry, stamp)
    }

    /// What a lookup that may not wait for the disk found.
    package enum InlineLookup {
        case found(CacheEntry, PageStamp)
        case missing
        /// The entry's file is there but its bytes are not in memory: read it with `lookup` off the cooperative pool.
        case wouldBlock
    }

    /// As `lookup`, but without waiting for the disk: an entry kept in memory, or a file whose bytes are all in the
    /// kernel's page cache, is read inline; any other is `.wouldBlock` (and stays in the index).
    /// - Parameter tally: told when this lookup reads the entry's file (its walk's own count).
    package func lookupInline(_ key: CacheKey, keepsFirstRead: Bool = false, leavesBodyFor: UInt64? = nil, tally: FileReadTally? = nil) -> InlineLookup {
        lookup(key, wait: .pageCacheOnly, keepsFirstRead: keepsFirstRead, leavesBodyFor: leavesBodyFor, tally: tally)
    }

    /// As `lookupInline`, for an entry kept in memory that `isUsable` accepts (a fresh one) only: any other lookup is
    /// nil and records nothing (no use, no file read), for the caller to ask `lookupInline` or `lookup` later.
    package func lookupInMemory(_ key: CacheKey, if isUsable: (CacheEntry) -> Bool) -> (entry: CacheEntry, stamp: PageStamp)? {
        let found: (entry: CacheEntry, generation: UInt64)? = state.withLock { state in
            guard state.disabledReason == nil, var record = state.records[key], let entry = state.copies[key], isUsable(entry) else { return nil }
            state.useCounter += 1
            record.lastUse = state.useCounter
            // A use like any other: the eviction orders (file and memory) must see it.
            Self.markUsed(key, &record, &state)
            // No count toward the file's next touch: a touch writes the inode, which the loop's thread must not wait
            // for (review); the next lookup off the loop touches on its count.
            state.records[key] = record
            return (entry, record.generation)
        }
        guard let found else { return nil }
        return (found.entry, PageStamp(key: key, generation: found.generation))
    }

    private func lookup(
        _ key: CacheKey, wait: CacheFileSystem.ReadWait, keepsFirstRead: Bool, leavesBodyFor: UInt64?, tally: FileReadTally? = nil
    ) -> InlineLookup {
        // Only a caller that holds the entry and sends it from its file may be given a body left there.
        let leavesBodyFor = keepsFirstRead ? leavesBodyFor : nil
        var found = use(key, keepsFirstRead: keepsFirstRead, leavesBodyFor: leavesBodyFor, tally: tally)
        // Unknown here: a file another process wrote is indexed, then used.
        if case .unknown = found, ledger != nil, !state.withLock({ $0.unadoptedFolders.contains(key.directoryName) }),
            let info = CacheFileSystem.fileInfo(path(for: key))
        {
            adopt(key, size: info.size, inode: info.inode)
            found = use(key, keepsFirstRead: keepsFirstRead, leavesBodyFor: leavesBodyFor, tally: tally)
        }
        guard case .used(let shouldTouch, let remembered, let ahead, let generation, let seen, let entries, let aheadKept) = found else { return .missing }
        let stamp = PageStamp(key: key, generation: generation)
        // A hit in memory builds no path unless it refreshes the file's time (issue 13: a string a hit otherwise).
        if let remembered {
            // One kept with its held file: written in place since it was verified (attack13 L1), it is no entry.
            if let file = remembered.bodyInFile?.file, !file.isUnchanged() {
                withStateReleasing { state in Self.dropHeld(key, &state) }
                removeCorrupt(key, inode: file.stamp.inode)
                return .missing
            }
            // One kept with its held file too: the touch moves the times its in-place check compares (review20 F4).
            if shouldTouch { CacheFileSystem.touch(path(for: key)) }
            return .found(remembered, stamp)
        }
        if let ahead {
            if shouldTouch, !ahead.touched { CacheFileSystem.touch(path(for: key)) }
            // Kept in memory on the same terms as an entry this lookup would have read itself (below); its file goes
            // to a caller that sends from it, and is closed for any other.
            let entry = keepsFirstRead ? ahead.entry : ahead.entry.withoutFile
            // Noted and kept by `use`, in its hold of the lock: the inode read was the one the record knew, or the first.
            if aheadKept { return .found(entry, stamp) }
            // The inode the read-ahead read, compared with the record's as this lookup's own read would be.
            guard let version = noteFileInode(key, ahead.inode, readUnder: generation) else { return .missing }
            if entry.bodyInFile != nil {
                keepHeld(entry, for: key, generation: version)
            } else if seen || keepsFirstRead && entry.file == nil {
                remember(entry, for: key, generation: version)
            }
            return .found(entry, PageStamp(key: key, generation: version))
        }
        guard let entries else { return .missing }
        let file: EntryFile?
        do throws(CacheFileSystem.Failure) {
            // A caller that keeps the entry's bytes (a merged answer) may send them from the file instead; on the entry's
            // first hit since the start, it may be given the body verified there and not read into memory.
            file = try readEntryFile(key, in: entries, touch: shouldTouch, wait: wait, holdsFile: keepsFirstRead, leavesBodyFor: seen ? nil : leavesBodyFor)
        } catch {
            if error.wouldBlock {
                // The read off the pool that follows counts as this use; it refreshes the file's time if this would have.
                if shouldTouch { state.withLock { $0.records[key]?.hitsSinceTouch = nil } }
                return .wouldBlock
            }
            forget(key)
            return .missing
        }
        guard let file else {
            forget(key)
            return .missing
        }
        do throws(CacheEntryFormat.Invalid) {
            guard let entry = try file.entry(for: key) else {
                // Verified, but the held-files budget filled meanwhile: read as any other caller's, body and all.
                return lookup(key, wait: wait, keepsFirstRead: keepsFirstRead, leavesBodyFor: nil, tally: tally)
            }
            // Kept in memory once this process has seen the entry before (written it, or hit it since it started): a
            // walk through entries read once after a restart does not fault in a copy of each (issue 13: that was a
            // third of a read-back's time); their next hit keeps them. A caller that holds the entry anyway keeps it
            // now, unless it sends the body from the file: then the body's memory is let go at once, and reused for
            // the next entry's (issue 13, eighth pass: no fresh page faults on the first read-back after a restart).
            guard let version = noteFileInode(key, file.inode, readUnder: generation) else { return .missing }
            if entry.bodyInFile != nil {
                // Its file was looked at after the read (`noteFileInode`, or the inode known): kept with it.
                keepHeld(entry, for: key, generation: version)
            } else if seen || keepsFirstRead && entry.file == nil {
                remember(entry, for: key, generation: version)
            }
            return .found(entry, PageStamp(key: key, generation: version))
        } catch {
            // Its removal takes the cache directory's lock (`release`), which another process may hold through a whole
            // scan: a thread of the cooperative pool leaves it to the lookup off the pool (review10).
            if wait == .pageCacheOnly { return .wouldBlock }
            // Outside the store's lock, which every lookup takes (loose12); under the directory's, as `remove` does
            // (review15 B2): only the file read is taken aside, exactly once however an eviction or a writer races it, and
            // only its own size is subtracted. Only a record of it is dropped: a version written or read since keeps its own.
            removeCorrupt(key, inode: file.inode)
            return .missing
        }
    }

    /// Takes `key`'s file aside when it is still the one with `inode` (found corrupt, or changed in place), and drops
    /// the record of it (a version written or read since keeps its own).
    private func removeCorrupt(_ key: CacheKey, inode: UInt64) {
        takeAside(key, ifInode: inode)
        withStateReleasing { state in
            if state.records[key].map({ $0.inode == nil || $0.inode == inode }) ?? true { Self.dropRecord(key, &state) }
        }
    }

    /// Told by a held entry file that a sender found it changed in place since it was verified (attack13 L1): the
    /// entry is removed off the sender's thread (the removal takes the directory's lock), that inode only.
    func changedInPlace(_ key: CacheKey) -> @Sendable (UInt64) -> Void {
        { [weak self] inode in
            guard let self else { return }
            evictions.async { self.removeCorrupt(key, inode: inode) }
        }
    }

    /// What a lookup found of `key` under the store's lock (`use`).
    private enum Use {
        /// No record (or the store is disabled).
        case unknown
        /// A use of the record: whether to refresh the file's time, the copy in memory or read ahead if any, the
        /// version, and whether this process had seen the entry before.
        /// `aheadKept`: the entry read ahead was noted (its inode) and kept (in memory, or with its held file, on the
        /// terms of an entry the lookup read itself) in the same hold: the lookup has nothing more to do under the lock.
        case used(touch: Bool, memory: CacheEntry?, ahead: ReadAhead?, generation: UInt64, seen: Bool, entries: HeldDirectory?, aheadKept: Bool)
    }

    /// The directory an entry file is read under, and whether it is time to compare it with the directory now at the
    /// store's path (`EntryDirectory`).
    typealias HeldDirectory = (directory: EntryDirectory, checkDue: Bool)

    /// How often a lookup or read-ahead that reads a file first makes sure the held directory is still the one at the
    /// store's path: a directory replaced under a running store is read through the old one at most this long.
    private static let entryDirectoryCheckInterval: UInt64 = 1_000_000_000

    /// Records a use of `key`'s entry, in one hold of the lock, hashing the key as few times as it can: once for the
    /// record (read and written back by its index), once for a copy in memory only when the record says there is one,
    /// once for the entries read ahead only when there are any (issue 13, seventh pass: five hashes of the key, and a
    /// second hold of the lock for `contains`, were ~4 % of a warm read-back).
    /// A body-less entry read ahead (`CacheEntry.bodyInFile`) is taken only by a lookup that leaves bodies for its scan
    /// signature (`leavesBodyFor`); for any other it is dropped, and the lookup reads the file (review16 B3).
    /// An entry read ahead whose inode is the one the record knows (or the first known) is noted and kept in the same
    /// hold (`Use.aheadKept`; issue 13: three holds a lookup, contended by the read-ahead's own); one of another inode
    /// (another process renamed a version over it) is left to the lookup's `noteFileInode`, as before.
    private func use(_ key: CacheKey, keepsFirstRead: Bool, leavesBodyFor: UInt64?, tally: FileReadTally?) -> Use {
        // Let go after the lock (its held descriptor is closed then).
        var refused: ReadAhead?
        defer { _ = refused }
        return withStateReleasing { state in
            guard state.disabledReason == nil, let index = state.records.index(forKey: key) else { return .unknown }
            var record = state.records.values[index]
            state.useCounter += 1
            record.lastUse = state.useCounter
            Self.markUsed(key, &record, &state)
            let seen = record.hitsSinceTouch != nil
            let hits = record.hitsAfterNextUse(interval: touchInterval)
            let touch = hits >= touchInterval
            record.hitsSinceTouch = touch ? 0 : hits
            state.records.values[index] = record
            var memory = record.memoryUse == nil ? nil : state.copies[key]
            // Else one kept with its held file, for a lookup that leaves bodies for its scan.
            if memory == nil, let leavesBodyFor, let held = state.held[key], held.generation == record.generation,
                held.entry.scan?.signature == leavesBodyFor
            {
                state.heldRecency.moveToNewest(held.use)
                memory = held.entry
            }
            var ahead = state.readAhead.isEmpty ? nil : state.readAhead.take(key, generation: record.generation, released: &state.released)
            if let body = ahead?.entry, body.bodyInFile != nil, leavesBodyFor == nil || body.scan?.signature != leavesBodyFor {
                refused = ahead
                ahead = nil
            }
            var entries: HeldDirectory?
            if memory == nil, ahead == nil {
                state.fileReads += 1
                tally?.add()
                entries = Self.entryDirectory(&state)
            }
            var aheadKept = false
            if let ahead, record.inode.map({ $0 == ahead.inode }) ?? true {
                state.records.values[index].inode = ahead.inode
                // As `lookup` keeps an entry it read itself: the caller's entry's file goes to a caller that sends from it.
                let entry = ahead.entry
                if entry.bodyInFile != nil {
                    keepWithFile(keepsFirstRead ? entry : entry.withoutFile, for: key, generation: record.generation, &state)
                } else if seen || keepsFirstRead && entry.file == nil {
                    keepCopy(entry.withoutFile, for: key, &state)
                }
                aheadKept = true
            }
            return .used(
                touch: touch, memory: memory, ahead: ahead, generation: record.generation, seen: seen, entries: entries, aheadKept: aheadKept)
        }
    }

    /// The held directory and whether it is time to check it (`HeldDirectory`); nil before `open()`.
    static func entryDirectory(_ state: inout State) -> HeldDirectory? {
        guard let directory = state.entryDirectory else { return nil }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now >= state.entryDirectoryCheckAt else { return (directory, false) }
        state.entryDirectoryCheckAt = now + entryDirectoryCheckInterval
        return (directory, true)
    }

    /// Opens the directory at the store's path again, in place of `stale` (unless another thread did already), and
    /// returns the directory held now. One held before and replaced now was removed or moved away (`rm -rf`, a volume
    /// mounted over it): nothing this process knew of its entries holds for the new one (`forgetVersions`).
    @discardableResult
    func replaceEntryDirectory(_ stale: EntryDirectory?, keeping key: CacheKey? = nil) -> EntryDirectory {
        let fresh = EntryDirectory(path: directory)
        let (held, forgotten) = state.withLock { state -> (EntryDirectory, ForgottenVersions?) in
            if let held = state.entryDirectory, held !== stale { return (held, nil) }
            let replaced = state.entryDirectory != nil
            // Records of a directory removed are of files gone: dropped, or `/metrics` and the eviction count them.
            let gone = state.entryDirectory?.isGone(replacedBy: fresh) == true
            state.entryDirectory = fresh
            state.entryDirectoryCheckAt = DispatchTime.now().uptimeNanoseconds + Self.entryDirectoryCheckInterval
            return (fresh, replaced ? Self.forgetVersions(&state, droppingRecords: gone, but: key) : nil)
        }
        withExtendedLifetime(forgotten) {}  // the copies' memory and held descriptors let go outside the lock
        return held
    }
}

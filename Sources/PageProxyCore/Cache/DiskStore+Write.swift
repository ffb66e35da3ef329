import Glibc
import Synchronization

/// Writes and removals: the temporary file, its place under the shared bound, a full volume, and why a write stored
/// nothing.
extension DiskStore {
    /// Stores `entry` under `key` atomically, then queues an eviction of least recently used entries if the shared
    /// total passed `evictionStart`. Blocks on the disk: callers on the cooperative pool run it on a `DiskWork` lane.
    /// - Returns: the stamp of the version written; nil when it was not written (too large, store disabled, no room
    ///   made after a few evictions, failure).
    /// - Parameters:
    ///   - synced: its bytes reach the disk before its name does (`CacheFileSystem.writeTemporary`).
    ///   - sparing: entries the room for it is never made by evicting (an answer's own pages, review23 F6: evicting them
    ///     would leave it dead on arrival); with no room made without them, it is not written (`noRoom`).
    @discardableResult
    package func write(_ entry: CacheEntry, for key: CacheKey, synced: Bool = false, sparing: [CacheKey] = []) -> PageStamp? {
        let bytes = CacheEntryFormat.encode(entry, key: key)
        guard bytes.count <= maxBytes else {
            // The old version is no longer what the upstream says: it must not be served (nor answers built on it).
            remove(key)
            noteFailedWrite(.tooLarge)
            return nil
        }
        guard let ledger, let names = temporaryNames(for: key) else { return nil }
        let (temporary, aside) = names
        onWriting?(key)
        let path = self.path(for: key)
        var placed: Result<(total: Int, leftAt: String?), CacheFileSystem.Failure>?
        var written: UInt64?
        var volume: CacheVolume?
        // Whether the last eviction made for room gave up on a busy lock: then no room is `lockBusy`, this write's own
        // finding (fix27: the ledger's `isBusy` said so while any lock, the directory's too, was marked busy).
        var evictionGaveUp = false
        for volumeAttempt in 1...2 {
            placed = nil
            do throws(CacheFileSystem.Failure) {
                if let errno = failWriting?(key) { throw CacheFileSystem.Failure(call: "write", path: temporary, errno: errno) }
                try writeTemporary(bytes, temporary, in: "\(directory)/\(key.directoryName)", synced: synced)
                // The inode the rename puts in place: what this process knows the entry's file by (`noteFileInode`).
                written = CacheFileSystem.inode(temporary)
                for attempt in 1...Self.roomAttempts {
                    placed = place(temporary, at: path, size: bytes.count, aside: aside, ledger: ledger)
                    // Not while a store over its bound at its start is brought down: that may take minutes (attack15 M2).
                    if placed != nil || attempt == Self.roomAttempts || state.withLock({ $0.evictingAtStart }) { break }
                    // No room: wait for the eviction under way, if any, then evict what is still needed.
                    evictionGaveUp = !evict(making: bytes.count, sparing: Set(sparing + [key]), wait: true, unlessBusy: true)
                }
            } catch {
                placed = .failure(error)
            }
            // The volume is full before the bound is (it is smaller than `maxBytes`, or others' files fill it): make
            // room by evicting the oldest entries, and try once more. Never a reason to disable the store.
            guard case .failure(let error) = placed, error.meansNoSpace else { break }
            CacheFileSystem.remove(temporary)
            volume = readVolume(directory)
            noteVolumeFull(error, outOfInodes: volume?.isOutOfInodes == true)
            guard volumeAttempt == 1 else { break }
            // A page the volume could not hold with every entry evicted is sent, not stored: evicting for it would
            // empty the cache for everyone and still not store it (attack13 L3: a 3 MB page on a 2 MB volume).
            if let room = volume, !room.isOutOfInodes {
                // The total under the bounded wait a write takes the lock with (review25 M1); given up, it goes unstored.
                guard let total = ledger.withLockUnlessBusy({ $0 }) else {
                    placed = .failure(.lockBusy("\(directory)/\(CacheDirectoryLedger.lockName)"))
                    break
                }
                if !room.couldHold(bytes.count, evicting: total ?? 0) {
                    noteFailedWrite(.largerThanVolume)
                    CacheFileSystem.remove(temporary)
                    remove(key)
                    return nil
                }
            }
            evict(making: 0, sparing: Set(sparing + [key]), wait: true, freeing: bytes.count * 2, unlessBusy: true)
        }
        guard case .success(let (total, leftAt)) = placed else {
            // Probed once (`proveWritable`), for the count and for the disabling below alike.
            let folderOnly = placed.map { if case .failure(let error) = $0 { isFolderOnly(error, of: key) } else { false } } ?? false
            switch placed {
            case .failure(let error) where error.meansNoSpace: noteFailedWrite(volume?.isOutOfInodes == true ? .noInodes : .noSpace)
            case .failure(let error) where error.isLinkedFolder: noteFailedWrite(.linkedFolder); linkedFolderNotice?.note(error.path)
            case .failure(let error) where error.isLockBusy: noteFailedWrite(.lockBusy)
            case .failure where folderOnly:
                noteFailedWrite(.unwritableFolder)
                unwritableFolderNotice?.note(folder(of: key))
                state.withLock { _ = $0.unadoptedFolders.insert(key.directoryName) }
            case .failure: noteFailedWrite(.error)
            // No room made: the eviction lock may have been held past the bound by another process.
            default: noteFailedWrite(evictionGaveUp ? .lockBusy : .noRoom)
            }
            CacheFileSystem.remove(temporary)
            if case .failure(let error) = placed, error.disablesCache, !folderOnly {
                disable("cache directory \(directory) is unusable: \(error.description)")
            }
            // Not stored: the old version is no longer what the upstream says (as for an entry too large).
            remove(key)
            return nil
        }
        // Written by path: if the directory there is not the one reads go through any more, reads follow it now, before
        // the record names the new version (review9 B4: a lookup between the two read the old file through the old
        // directory under the new record, took its inode for another process's newer version, and kept it).
        if let held = state.withLock({ $0.entryDirectory }), !held.isCurrent { _ = replaceEntryDirectory(held, keeping: key) }
        let stamp = withStateReleasing { state -> PageStamp in
            state.volumeFull = false
            if !state.unadoptedFolders.isEmpty { state.unadoptedFolders.remove(key.directoryName) }
            Self.dropMemory(key, &state)
            state.useCounter += 1
            state.changeCounter += 1
            var record = Record(
                size: bytes.count, lastUse: state.useCounter, hitsSinceTouch: 0, generation: state.changeCounter, use: state.records[key]?.use,
                inode: written)
            Self.markUsed(key, &record, &state)
            let old = state.records.updateValue(record, forKey: key)
            state.totalBytes += bytes.count - (old?.size ?? 0)
            return PageStamp(key: key, generation: record.generation)
        }
        onWritten?(key)
        if let leftAt { CacheFileSystem.remove(leftAt) }
        if total > evictionStart { queueEviction() }
        return stamp
    }

    /// Whether `error`, one that would disable the store, is of `key`'s fan-out folder alone: its path is under the
    /// folder and the directory itself takes a write (`proveWritable`, as the store's retry proves it). Then only the
    /// keys under that folder go uncached (attack17 L3: one folder `chmod 500` disabled the whole cache, and `/readyz`
    /// flapped every 30 s), as under a folder that is a link.
    private func isFolderOnly(_ error: CacheFileSystem.Failure, of key: CacheKey) -> Bool {
        guard error.disablesCache, error.path.hasPrefix(folder(of: key) + "/"), let ledger else { return false }
        return (try? proveWritable(ledger)) != nil
    }

    /// `key`'s fan-out folder.
    private func folder(of key: CacheKey) -> String { "\(directory)/\(key.directoryName)" }

    /// How many times a write that finds no room evicts before it gives up (others may take the room it made).
    static let roomAttempts = 3

    /// Counts a write the volume had no space for, and tells `onVolumeFull` when the volume was not known full (a
    /// write that succeeds ends that): once per episode, not once per write.
    private func noteVolumeFull(_ error: CacheFileSystem.Failure, outOfInodes: Bool) {
        let first = state.withLock { state -> Bool in
            state.writesWithoutSpace += 1
            defer { state.volumeFull = true }
            return !state.volumeFull
        }
        if first { onVolumeFull?(error.description, outOfInodes) }
    }

    /// Why a write stored nothing (`pageproxy_cache_write_failures_total`).
    package enum WriteFailure: String, Sendable, CaseIterable, Comparable {
        /// The entry is larger than `maxBytes`.
        case tooLarge = "too_large"
        /// The volume could not hold it with every entry evicted.
        case largerThanVolume = "larger_than_volume"
        /// The volume had no space, after an eviction.
        case noSpace = "no_space"
        /// The volume had no free inodes, after an eviction.
        case noInodes = "no_inodes"
        /// The shared total left no room under `maxBytes`, after a few evictions (others took it).
        case noRoom = "no_room"
        /// Its fan-out folder is a symbolic link, which nothing is written through (`LinkedFolderNotice`).
        case linkedFolder = "linked_folder"
        /// A lock of the directory was held by another process past `CacheDirectoryLedger.busyWait` (attack17 M3).
        case lockBusy = "lock_busy"
        /// Its fan-out folder refused the write (forbidden, read-only) while the directory itself takes writes.
        case unwritableFolder = "unwritable_folder"
        /// Any other failure of the file system.
        case error

        package static func < (a: WriteFailure, b: WriteFailure) -> Bool { a.rawValue < b.rawValue }
    }

    private func noteFailedWrite(_ reason: WriteFailure) {
        state.withLock { $0.failedWrites[reason, default: 0] += 1 }
    }

    /// The writes that stored nothing, by why.
    package var failedWrites: [WriteFailure: Int] { state.withLock { $0.failedWrites } }

    /// How many write attempts found the volume full (a write tries twice, evicting in between; see `write`).
    package var writesWithoutSpace: Int { state.withLock { $0.writesWithoutSpace } }

    /// Whether `key` may have an entry here: in the index, or as a file another process wrote (one `lstat`, no lock):
    /// when not, `remove` has nothing to do, and a caller need not send it to a disk thread.
    package func mayHold(_ key: CacheKey) -> Bool {
        contains(key) || CacheFileSystem.fileInfo(path(for: key)) != nil
    }

    /// Removes the entry for `key`, if any.
    package func remove(_ key: CacheKey) {
        // The file goes even without a record here: another process may have written it. No file, no lock taken.
        if CacheFileSystem.fileInfo(path(for: key)) != nil { takeAside(key) }
        withStateReleasing { state in _ = Self.dropRecord(key, &state) }
    }

    /// Removes the version `stamp` names, and only it: when the store holds another version of the page now (written,
    /// or another process's noticed, since), that one stays (fix37: a walk that found its pages suspect removed the
    /// newer, good copy another walk had stored meanwhile). The file goes only while it is the one this process knows
    /// that version by (its inode, checked under the directory's lock, as `removeCorrupt` does; a version whose inode
    /// is not known loses its file as `remove` takes it). The record goes only while it still names that version.
    /// - Returns: whether the version was still the store's and is removed.
    @discardableResult
    package func remove(_ stamp: PageStamp) -> Bool {
        let key = stamp.key
        // Nil: that version is no longer the store's; `.some(nil)`: it is, its file's inode not known.
        let held = state.withLock { state -> UInt64?? in
            guard let record = state.records[key], record.generation == stamp.generation else { return nil }
            return .some(record.inode)
        }
        guard case .some(let inode) = held else { return false }
        if CacheFileSystem.fileInfo(path(for: key)) != nil { takeAside(key, ifInode: inode) }
        return withStateReleasing { state in
            guard state.records[key]?.generation == stamp.generation else { return false }
            return Self.dropRecord(key, &state)
        }
    }

    /// Takes `key`'s file aside and subtracts its size in one hold of the directory's lock (a rescan under it sees
    /// the same as the total; of two removals racing, one `rename` wins and only it subtracts), then unlinks it.
    /// - Parameter inode: only the file with this inode (the one a lookup found corrupt), not a version renamed in since.
    func takeAside(_ key: CacheKey, ifInode inode: UInt64? = nil) {
        guard let ledger, let aside = temporaryNames(for: key)?.aside else { return }
        let path = self.path(for: key)
        let removed = ledger.withLockUnlessBusy { (total: inout Int?) -> Int? in
            if let inode, CacheFileSystem.inode(path) != inode { return nil }
            guard let size = detachEntry(key, to: aside) else { return nil }
            Self.subtract(size, from: &total)
            return size
        }
        switch removed {
        case .some(.some): CacheFileSystem.remove(aside)
        case .some(.none): break
        case .none:
            // The lock held past the bound (attack17 M3): the file goes all the same, its bytes still counted (a total
            // too high, as a process killed leaves it, never too low; an eviction's rescan corrects it).
            if inode == nil || CacheFileSystem.inode(path) == inode, detachEntry(key, to: aside) != nil { CacheFileSystem.remove(aside) }
        }
    }

    /// Writes a temporary file, making its fan-out folder only when it is missing (not five system calls per write).
    /// An eviction removes a folder it empties (`removeEmptyFolders`), maybe between this one's making it and the
    /// write: a few tries, since a missing directory would disable the store.
    private func writeTemporary(_ bytes: [UInt8], _ temporary: String, in folder: String, synced: Bool) throws(CacheFileSystem.Failure) {
        try Self.refuseLinkedFolder(folder)
        for attempt in 1...3 {
            do throws(CacheFileSystem.Failure) {
                return try CacheFileSystem.writeTemporary(bytes, temporary, synced: synced)
            } catch where error.errno == ENOENT && attempt < 3 {
                try CacheFileSystem.makeDirectory(folder)
            }
        }
    }

    /// Throws `ELOOP` when `folder` (a fan-out folder) is there but is no directory of its own, such as a symbolic
    /// link: nothing is written through it (attack15 L1). Not an error that disables the store: that page is not stored.
    private static func refuseLinkedFolder(_ folder: String) throws(CacheFileSystem.Failure) {
        guard !CacheFileSystem.isForeignFolder(folder) else {
            throw .linkedFolder(folder)
        }
    }

    /// Moves `key`'s entry file aside (`CacheFileSystem.detach`), unless its fan-out folder is a link out of the
    /// directory (attack15 L1: eviction removed files named like entries elsewhere).
    func detachEntry(_ key: CacheKey, to aside: String) -> Int? {
        guard CacheFileSystem.isOwnDirectory("\(directory)/\(key.directoryName)") else { return nil }
        return CacheFileSystem.detach(path(for: key), to: aside)
    }

    /// Two names beside `key`'s entry no other writer uses: where its bytes are written, and where the version it
    /// replaces is moved aside. Named after this process's instance, so that no other process's start-up removes them
    /// while it lives, and its own next start removes what a crash left. Nil when the store is disabled.
    func temporaryNames(for key: CacheKey) -> (temporary: String, aside: String)? {
        state.withLock { state in
            guard state.disabledReason == nil else { return nil }
            state.temporaryCounter += 2
            let stem = "\(directory)/\(key.directoryName)/\(key.hex).tmp-\(ledger?.instance ?? "0")-"
            return (stem + String(state.temporaryCounter - 1), stem + String(state.temporaryCounter))
        }
    }

    /// Under the directory's lock: when the shared total leaves room for `size` bytes more (less the version
    /// replaced), counts them, then puts `temporary` in place. Nil when there is no room (or the total is unknown: an
    /// eviction finds it); otherwise the total after the write and where the version replaced now is (for the caller
    /// to unlink outside the lock).
    ///
    /// The bytes are saved to the lock file before the entry appears, and the version replaced is subtracted after
    /// it, by its exact size (`CacheFileSystem.replace`): a process killed in between leaves the total too high,
    /// never too low, and an eviction that took the old version meanwhile is not subtracted twice.
    private func place(
        _ temporary: String, at path: String, size: Int, aside: String, ledger: CacheDirectoryLedger
    ) -> Result<(total: Int, leftAt: String?), CacheFileSystem.Failure>? {
        // Not waited for past a bound (a peer frozen in its hold): the page goes on unstored (attack17 M3).
        let placed = ledger.withLockUnlessBusy { (total: inout Int?) -> Result<(total: Int, leftAt: String?), CacheFileSystem.Failure>? in
            guard let current = total, current - (CacheFileSystem.fileInfo(path)?.size ?? 0) + size <= maxBytes else { return nil }
            // Every save is explicit here, so `total` is left as found (`withLock` writes back only a change of it).
            ledger.saveWhileLocked(current + size)
            let replaced: (replaced: Int, leftAt: String?)
            do throws(CacheFileSystem.Failure) {
                replaced = try CacheFileSystem.replace(path, with: temporary, aside: aside)
            } catch {
                ledger.saveWhileLocked(current)
                return .failure(error)
            }
            if replaced.replaced != 0 { ledger.saveWhileLocked(current + size - replaced.replaced) }
            return .success((current + size - replaced.replaced, replaced.leftAt))
        }
        return placed ?? .failure(.lockBusy("\(directory)/\(CacheDirectoryLedger.lockName)"))
    }
}

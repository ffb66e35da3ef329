import Dispatch
import Synchronization

/// Eviction of the least recently used entries under the shared bound, and the directory scan it and `open` use.
extension DiskStore {
    /// Queues an eviction on `evictions`, unless one is queued and has not started yet.
    func queueEviction() {
        let queues = state.withLock { state -> Bool in
            defer { state.evictionQueued = true }
            return !state.evictionQueued
        }
        guard queues else { return }
        evictions.async { [self] in
            // Writes from now on may queue the next one: this one may be past the total they see.
            state.withLock { $0.evictionQueued = false }
            evict(making: 0, sparing: [], wait: false)
        }
    }

    /// Evicts least recently used entries, this process's first, then the other processes' oldest files, until the
    /// shared total is at most `evictionTarget` less `making` (room a write waits for); nothing when it is already
    /// below `evictionStart` (or leaves room for `making`). Holds the eviction lock throughout, so two evictions do not
    /// pick the same victims; with `wait` false it returns at once when another eviction is under way. With
    /// `unlessBusy` (a write's), it waits for another's a bounded time only (`CacheDirectoryLedger.withLockUnlessBusy`).
    ///
    /// The directory scan, the sort and the `unlink`s run outside the directory's lock and the store's `Mutex`:
    /// writes that fit, and lookups, go on. Each victim is taken aside (`detach`) and then removed, and the bytes
    /// actually removed are subtracted from the total afterwards, so a process killed mid-eviction leaves the total
    /// too high, never too low. A lookup that finds a victim's file gone treats it as a miss.
    ///
    /// A write's eviction (`unlessBusy`) and a queued one (not `wait`) take the directory's lock as a write does, a
    /// bounded time (review25 M1: blocked in `flock` while a peer was frozen in its hold, a write that needed room held
    /// its DiskWork lane, and a queued eviction held the eviction lock, for as long as the peer stayed frozen); when
    /// that runs out the eviction gives up, leaving the total too high if it had removed files already.
    /// - Returns: false when it gave up before choosing victims: a lock stayed busy past its bound (or, not `wait`,
    ///   another eviction was under way).
    @discardableResult
    func evict(making room: Int, sparing spared: Set<CacheKey>, wait: Bool, freeing: Int = 0, unlessBusy: Bool = false) -> Bool {
        guard let ledger else { return true }
        let bounded = unlessBusy || !wait
        var gaveUp = false
        let held = ledger.withEvictionLock(wait: wait, unlessBusy: unlessBusy) {
            // Another eviction may have made the room while this one waited: then no scan at all.
            let locked: Int?? = ledger.withLock(bounded: bounded) { $0 }
            guard let before = locked else {
                gaveUp = true
                return
            }
            if freeing == 0, let before, room > 0 ? before + room <= maxBytes : before <= evictionStart { return }
            let files = Self.scan(directory).entries
            let scanned = files.values.reduce(0) { $0 + $1.size }
            let counted: Int? = ledger.withLock(bounded: bounded) { total in
                // Unknown (a new or damaged lock file), or far above the files (left by killed processes): the true
                // total from a rescan. Exact under both locks: every rename and removal is counted in one hold of the
                // directory's lock, and no other eviction has victims aside.
                if total.map({ $0 - scanned > maxBytes / 10 }) ?? true {
                    total = Self.scan(directory).entries.values.reduce(0) { $0 + $1.size }
                }
                return total ?? 0
            }
            guard let known = counted else {
                gaveUp = true
                return
            }
            let needed = freeing > 0 || (room > 0 ? known + room > maxBytes : known > evictionStart)
            guard needed else { return }
            // A full volume: at least `freeing` bytes, and a twentieth of what is stored, so that a volume smaller than
            // the bound settles after a few writes instead of evicting at every one.
            let target = freeing > 0 ? max(0, min(evictionTarget, known - max(freeing, known / 20))) : max(0, evictionTarget - room)
            var victims: [CacheKey] = []
            var remaining = known
            // Ours, least recently used first, taken out of the order a batch at a time (a short hold of the lock
            // each: the epoll loop takes it for every memo hit); those not evicted go back to the front after.
            var passed: [CacheKey] = []
            var chosen: Set<CacheKey> = []
            while remaining > target {
                let batch = state.withLock { state in Self.takeOldest(evictionBatch, &state) }
                if batch.isEmpty { break }
                for key in batch {
                    // A key used between two batches is back at the newest end, and may be taken again: once only.
                    guard remaining > target, !spared.contains(key), let file = files[key], chosen.insert(key).inserted else {
                        passed.append(key)
                        continue
                    }
                    victims.append(key)
                    remaining -= file.size
                }
            }
            // Then the other processes' files, oldest first: those this process has no record of.
            if remaining > target {
                let sorted = files.sorted { $0.value.used < $1.value.used }
                var start = 0
                while remaining > target, start < sorted.count {
                    let slice = sorted[start..<min(sorted.count, start + evictionBatch)]
                    start = slice.endIndex
                    let unknown = state.withLock { state in slice.filter { state.records[$0.key] == nil } }
                    for file in unknown where remaining > target && !spared.contains(file.key) {
                        victims.append(file.key)
                        remaining -= file.value.size
                    }
                }
            }
            onEvicting?(victims)
            var removed = 0
            var gone: [CacheKey] = []
            for key in victims {
                guard let aside = temporaryNames(for: key)?.aside, let size = detachEntry(key, to: aside) else {
                    passed.append(key)
                    continue
                }
                CacheFileSystem.remove(aside)
                removed += size
                gone.append(key)
            }
            release(removed, bounded: bounded)
            removeEmptyFolders(of: gone)
            // A lookup between an unlink and the forgetting below finds no file and forgets the record itself. In
            // batches, and the copies in memory freed after each hold of the lock.
            for start in stride(from: 0, to: gone.count, by: evictionBatch) {
                let freed = withStateReleasing { state in
                    gone[start..<min(gone.count, start + evictionBatch)].compactMap { key -> CacheEntry? in
                        let copy = state.copies[key]
                        Self.dropRecord(key, &state)
                        return copy
                    }
                }
                _ = freed
            }
            // Put back in the order, as the oldest, in their order: the records no lookup used meanwhile.
            for start in stride(from: 0, to: passed.count, by: evictionBatch) {
                let end = passed.count - start
                state.withLock { state in
                    for key in passed[max(0, end - evictionBatch)..<end].reversed() where state.records[key]?.use == nil {
                        state.records[key]?.use = state.recency.insertOldest(key)
                    }
                }
            }
        }
        return held && !gaveUp
    }

    /// Removes the fan-out folders of `keys` that are empty now: each holds an inode, and a volume out of inodes was
    /// filled by empty ones (attack13 L2: 19 empty folders held all 24 of a small volume's). `rmdir` removes only an
    /// empty directory; a writer that finds its folder gone makes it again (`writeTemporary`).
    private func removeEmptyFolders(of keys: [CacheKey]) {
        for name in Set(keys.map(\.directoryName)) { CacheFileSystem.removeDirectoryIfEmpty("\(directory)/\(name)") }
    }

    /// Takes up to `count` least recently used keys out of the records' order (their records stay; a lookup puts
    /// one back as it uses it).
    private static func takeOldest(_ count: Int, _ state: inout State) -> [CacheKey] {
        var keys: [CacheKey] = []
        keys.reserveCapacity(min(count, state.recency.count))
        while keys.count < count, let key = state.recency.removeOldest() {
            state.records[key]?.use = nil
            keys.append(key)
        }
        return keys
    }

    /// Takes `bytes` off the shared total (entries removed); when `bounded` and the lock stays busy, leaves the total
    /// too high (a later eviction's rescan corrects it).
    private func release(_ bytes: Int, bounded: Bool) {
        guard bytes != 0 else { return }
        _ = ledger?.withLock(bounded: bounded) { total in Self.subtract(bytes, from: &total) }
    }

    /// `total` less `bytes`, never below 0; unknown stays unknown (an eviction's rescan finds it).
    static func subtract(_ bytes: Int, from total: inout Int?) {
        total = total.map { max(0, $0 - bytes) }
    }

    /// The entry files under `directory` (size, last use, inode) and the temporaries' paths.
    static func scan(_ directory: String) -> (entries: [CacheKey: (size: Int, used: Int64, inode: UInt64)], temporaries: [String]) {
        var entries: [CacheKey: (size: Int, used: Int64, inode: UInt64)] = [:]
        var temporaries: [String] = []
        for fanOut in CacheFileSystem.names(in: directory) ?? [] where fanOut.utf8.count == 2 {
            let folder = "\(directory)/\(fanOut)"
            // A folder that is a link leads outside the directory: none of its files is indexed, evicted or removed.
            guard CacheFileSystem.isOwnDirectory(folder) else { continue }
            for name in CacheFileSystem.names(in: folder) ?? [] {
                let path = "\(folder)/\(name)"
                if name.contains(".tmp-"), CacheKey(hex: String(name.prefix(64))) != nil {
                    temporaries.append(path)
                } else if name.hasSuffix(CacheKey.entrySuffix), let key = CacheKey(hex: String(name.dropLast(CacheKey.entrySuffix.count))),
                    key.directoryName == fanOut, let info = CacheFileSystem.fileInfo(path)
                {
                    entries[key] = info
                }
            }
        }
        return (entries, temporaries)
    }

    /// Brings a store found over its bound when it opened down to it on `evictions`, telling `onStartEviction` before
    /// (here, on the opening thread) and after. Not before the proxy listens (attack15 M2: 97,772 victims, 5-7 minutes
    /// without `/healthz`): it serves what it holds meanwhile, and a write that finds no room is not stored rather than
    /// wait (the bound holds for new writes; lookups of the victims are misses once their files are gone).
    ///
    /// It takes the directory's locks as a write does, a bounded time (`CacheDirectoryLedger.busyWait`): a peer frozen
    /// in its hold, or a peer's own start-up eviction of minutes, stalled it without end, and with it every later
    /// eviction of this process on `evictions` (fix27). Given up, it tells `.gaveUp` and leaves the work to that peer
    /// and to this process's writes: one that finds no room evicts for it (bounded too), and one past `evictionStart`
    /// queues an eviction.
    func evictInBackground() {
        let (entries, bytes) = state.withLock { state in
            state.evictingAtStart = true
            return (state.records.count, state.totalBytes)
        }
        onStartEviction?(.began(entries: entries, bytes: bytes, maxBytes: maxBytes))
        evictions.async { [self] in
            let started = ContinuousClock.now
            let done = evict(making: 0, sparing: [], wait: true, unlessBusy: true)
            let (left, leftBytes) = state.withLock { state in
                state.evictingAtStart = false
                return (state.records.count, state.totalBytes)
            }
            guard done else {
                onStartEviction?(.gaveUp(duration: .now - started))
                return
            }
            onStartEviction?(.ended(evictedEntries: max(0, entries - left), evictedBytes: max(0, bytes - leftBytes), duration: .now - started))
        }
    }
}

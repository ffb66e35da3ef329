import Dispatch
import Synchronization

/// A store disabled and enabled again, and the opening of its directory.
extension DiskStore {
    func disable(_ reason: String) {
        let first = state.withLock { state -> Bool in
            guard state.disabledReason == nil else { return false }
            state.disabledReason = reason
            // A change: answers built on the entries (the merged-answer memo) check their stamps again, and find none
            // current, since a disabled store serves nothing.
            state.changeCounter += 1
            return true
        }
        if first {
            onDisable(reason)
            retryLater()
        }
    }

    /// Tries the directory again after `retryInterval`, off every caller's thread (on the evictions queue), while the
    /// store lives: a directory made read-only, forbidden or removed for a while, or not ready yet when the process
    /// started (a volume mounted late, its permissions set after), must not leave the proxy uncached (and `/readyz`
    /// 503) until it restarts.
    private func retryLater() {
        evictions.asyncAfter(deadline: .now() + retryInterval.timeInterval) { [weak self] in self?.tryToEnable() }
    }

    /// Proves the directory writable again, then serves again: a change, so nothing built before is taken as current
    /// without a check (entries whose files went meanwhile are misses). A store disabled at its start first takes the
    /// directory's lock and instance files (`CacheDirectoryLedger`) and opens it as a start would (`open`: temporaries
    /// of dead processes removed, the index and the shared total rebuilt by a scan). Otherwise tries again later.
    private func tryToEnable() {
        guard !isEnabled else { return }
        let opened = state.withLock { $0.opened }
        do throws(CacheFileSystem.Failure) {
            try CacheFileSystem.makeDirectory(directory)
            if ledger == nil { try takeLedger() }
            if opened, let ledger { try proveWritable(ledger) } else { try open() }
        } catch {
            retryLater()
            return
        }
        // The directory may have been made again meanwhile: reads go through the one there now.
        replaceEntryDirectory(state.withLock { $0.entryDirectory })
        let forgotten = state.withLock { state -> ForgottenVersions? in
            state.disabledReason = nil
            state.changeCounter += 1
            return opened ? Self.forgetVersions(&state) : nil
        }
        withExtendedLifetime(forgotten) {}  // the copies' memory and held descriptors let go outside the lock
        onEnable?()
    }

    /// The directory's ledger, taken now (the first time the directory works): kept for the store's life, as one taken
    /// at the start is (its instance file stays locked, and is removed when the store goes).
    private func takeLedger() throws(CacheFileSystem.Failure) {
        let ledger = try CacheDirectoryLedger(directory: directory, onBusy: onLockBusy)
        ledgerSlot.withLock { $0 = ledger }
    }

    /// Writes and removes an empty file of this process's in the directory: it can hold entries.
    func proveWritable(_ ledger: CacheDirectoryLedger) throws(CacheFileSystem.Failure) {
        let probe = "\(directory)/.probe-\(ledger.instance)"
        try CacheFileSystem.writeAtomically([], to: probe, temporary: probe + ".tmp")
        CacheFileSystem.remove(probe)
    }

    /// Proves the directory writable, removes temporaries no live process owns, rebuilds the index and the shared
    /// total (under the directory's lock), and evicts if the directory is over the bound.
    func open() throws(CacheFileSystem.Failure) {
        guard let ledger else { return }
        try proveWritable(ledger)
        // Both locks: no other process has an eviction's victims aside, so the rescan below is the true total. Taken a
        // bounded time, as a write takes them (fix27: a peer frozen in its hold, or evicting for minutes at its own
        // start, held this one's start, before it listened, for as long).
        var indexed = false
        ledger.withEvictionLock(wait: true, unlessBusy: true) {
            indexed = ledger.withLockUnlessBusy { total in total = index(ledger) } != nil
        }
        // Given up: the index from a scan without the locks, the shared total left as the peers keep it (an eviction's
        // rescan corrects it when far off); a start-up eviction then gives up at once (`.gaveUp`), writes evict for
        // themselves, and `onLockBusy` has told which lock.
        if !indexed { _ = index(ledger) }
        // Over the bound (a smaller one than the last run's, or one the processes disagree on): evicted in the background.
        if totalBytes > evictionStart { evictInBackground() }
    }

    /// Indexes the entry files found (the oldest used first) and removes the temporaries no live process owns.
    /// - Returns: the bytes of the entry files.
    private func index(_ ledger: CacheDirectoryLedger) -> Int {
        let (files, temporaries) = Self.scan(directory)
        for path in temporaries {
            let name = path.split(separator: "/").last.map(String.init) ?? ""
            // A temporary is removed only once its process is gone: another may be writing it now.
            if let owner = CacheDirectoryLedger.instance(ofTemporary: name), !ledger.isAlive(instance: owner) {
                CacheFileSystem.remove(path)
            }
        }
        state.withLock { state in
            for (index, file) in files.sorted(by: { $0.value.used < $1.value.used }).enumerated() {
                // The scan's `lstat` has the inode: a version another process renames into place before this process's
                // first read is then another version, as one after it is (`noteFileInode`; h13-read18's leftover).
                state.records[file.key] = Record(
                    size: file.value.size, lastUse: UInt64(index + 1), generation: UInt64(index + 1),
                    use: state.recency.insertNewest(file.key), inode: file.value.inode)
                state.totalBytes += file.value.size
            }
            state.useCounter = UInt64(files.count)
            state.changeCounter = max(state.changeCounter, UInt64(files.count))
            state.opened = true
            state.entryDirectory = EntryDirectory(path: directory)
        }
        return files.values.reduce(0) { $0 + $1.size }
    }
}

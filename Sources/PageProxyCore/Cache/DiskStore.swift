import Glibc
import Synchronization

/// Cache entries as files under one directory, bounded in bytes, evicting the least recently used.
///
/// The index (key → size, last use) lives in memory and is rebuilt at start by scanning the directory, ordered by
/// each file's modification time, which a hit refreshes; so the LRU order and the byte bound survive a restart.
/// Temporary files a crash left behind are removed at start. A directory that is missing and cannot be made,
/// unwritable, read-only or full disables the store: every read misses and every write is skipped, and
/// `onDisable` is told once, with the reason, so the proxy keeps serving uncached.
///
/// Only files named like entries (`<2 hex>/<64 hex>.entry`) and their temporaries are ever removed, so a cache
/// directory pointed at the wrong place does not lose anyone's files. Several processes may share the directory
/// (replicas on one volume): they agree on the byte bound and on whose temporaries are whose through
/// `CacheDirectoryLedger`, and each one reads the entries the others wrote.
package final class DiskStore: Sendable {
    private struct Record {
        var size: Int
        var lastUse: UInt64
        /// Hits since this process last refreshed the file's time (nil: never refreshed).
        var hitsSinceTouch: UInt64?
        /// Which write of this process the file holds (see `PageStamp`).
        var generation: UInt64
    }

    private struct State {
        var records: [CacheKey: Record] = [:]
        var totalBytes = 0
        var useCounter: UInt64 = 0
        var disabledReason: String?
        var temporaryCounter = 0
        /// Bumped by every write and removal: stamps each write with a new generation, and tells a memo at a glance
        /// that nothing changed since it last looked.
        var changeCounter: UInt64 = 0
        /// Entries read and verified since they were last written, once this process has seen them (see `lookup`):
        /// served again without re-reading the file.
        var memory: [CacheKey: CacheEntry] = [:]
        var memoryBytes = 0
    }

    package let directory: String
    package let maxBytes: Int
    private let state = Mutex(State())
    private let onDisable: @Sendable (String) -> Void
    /// A hit refreshes the file's time at most once per this many hits of that entry (cheap LRU persistence: a
    /// system call per page per request was 3 % of a cached walk, issue 13).
    private let touchInterval: UInt64 = 64
    /// The most body bytes kept in memory; past it the memory copies are dropped (the files stay).
    private let memoryLimit: Int
    /// The total bytes and the live processes that share the directory; nil when the directory is unusable.
    private let ledger: CacheDirectoryLedger?
    /// Told the victims of an eviction once they are chosen, before their files are removed (tests hold it there).
    private let onEvicting: (@Sendable ([CacheKey]) -> Void)?

    /// Opens (creating if needed) the store at `directory`; a store that cannot be used is returned disabled.
    package init(
        directory: String, maxBytes: Int, onDisable: @escaping @Sendable (String) -> Void = { _ in },
        onEvicting: (@Sendable ([CacheKey]) -> Void)? = nil
    ) {
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.maxBytes = max(0, maxBytes)
        self.onDisable = onDisable
        self.onEvicting = onEvicting
        self.memoryLimit = min(self.maxBytes, 64 << 20)
        var ledger: CacheDirectoryLedger?
        var failure: CacheFileSystem.Failure?
        do throws(CacheFileSystem.Failure) {
            try CacheFileSystem.makeDirectory(self.directory)
            ledger = try CacheDirectoryLedger(directory: self.directory)
        } catch {
            failure = error
        }
        self.ledger = ledger
        do throws(CacheFileSystem.Failure) {
            if let failure { throw failure }
            try open()
        } catch {
            disable("cache directory \(self.directory) is unusable: \(error.description)")
        }
    }

    /// This process's id among those sharing the directory (it names their temporary files); nil when unusable.
    package var instance: String? { ledger?.instance }

    /// Nil while the store works; otherwise why it was disabled.
    package var disabledReason: String? { state.withLock { $0.disabledReason } }
    package var isEnabled: Bool { disabledReason == nil }
    /// The bytes of every entry file in the index.
    package var totalBytes: Int { state.withLock { $0.totalBytes } }
    package var entryCount: Int { state.withLock { $0.records.count } }

    package func contains(_ key: CacheKey) -> Bool { state.withLock { $0.records[key] != nil } }

    /// Whether a copy of `key`'s entry is held in memory (served without reading its file).
    package func holdsInMemory(_ key: CacheKey) -> Bool { state.withLock { $0.memory[key] != nil } }

    /// How many writes and removals this store has seen: unchanged means every stamp taken before is still current.
    package var changeCount: UInt64 { state.withLock { $0.changeCounter } }

    /// Whether every page in `stamps` is still the version stamped (not rewritten by a 200 or a 304, removed or
    /// evicted): the store's `changeCount` when that was checked, or nil when one of them is not.
    package func changeCount(ifCurrent stamps: some Sequence<PageStamp>) -> UInt64? {
        state.withLock { state in
            stamps.allSatisfy { state.records[$0.key]?.generation == $0.generation } ? state.changeCounter : nil
        }
    }

    /// The entry for `key`, or nil. A torn, truncated or corrupted file is a miss and is removed.
    package func read(_ key: CacheKey) -> CacheEntry? { lookup(key)?.entry }

    /// The entry for `key` and the stamp of the version read, or nil; as `read`.
    ///
    /// The stamp is taken before the file is read, so a write racing with the read can only make it older than the
    /// bytes (an answer built from them is then dropped early), never newer.
    package func lookup(_ key: CacheKey) -> (entry: CacheEntry, stamp: PageStamp)? {
        if ledger != nil, !contains(key), let info = CacheFileSystem.fileInfo(path(for: key)) { adopt(key, size: info.size) }
        let found: (touch: Bool, memory: CacheEntry?, generation: UInt64, seen: Bool)? = state.withLock { state in
            guard state.disabledReason == nil, var record = state.records[key] else { return nil }
            state.useCounter += 1
            record.lastUse = state.useCounter
            let seen = record.hitsSinceTouch != nil
            let hits = record.hitsSinceTouch.map { $0 + 1 } ?? touchInterval
            let touch = hits >= touchInterval
            record.hitsSinceTouch = touch ? 0 : hits
            state.records[key] = record
            return (touch, state.memory[key], record.generation, seen)
        }
        guard let (shouldTouch, remembered, generation, seen) = found else { return nil }
        let stamp = PageStamp(key: key, generation: generation)
        let path = self.path(for: key)
        if let remembered {
            if shouldTouch { CacheFileSystem.touch(path) }
            return (remembered, stamp)
        }
        let file: (head: [UInt8], tail: [UInt8], inode: UInt64)?
        do throws(CacheFileSystem.Failure) {
            file = try CacheFileSystem.read(path, headLength: CacheEntryFormat.headLength(of:), touch: shouldTouch)
        } catch {
            forget(key)
            return nil
        }
        guard let file else {
            forget(key)
            return nil
        }
        do throws(CacheEntryFormat.Invalid) {
            let entry = try CacheEntryFormat.decode(head: file.head, body: file.tail, key: key)
            // Kept in memory once this process has seen the entry before (written it, or hit it since it started): a
            // walk through entries read once after a restart does not fault in a copy of each (issue 13: that was a
            // third of a read-back's time); their next hit keeps them.
            if seen { remember(entry, for: key, inode: file.inode, generation: generation) }
            return (entry, stamp)
        } catch {
            let removed = state.withLock { state -> Bool in
                let isSame = CacheFileSystem.inode(path) == file.inode
                CacheFileSystem.remove(path, ifInode: file.inode)
                Self.dropRecord(key, &state)
                return isSame
            }
            if removed { release(file.head.count + file.tail.count) }
            return nil
        }
    }

    /// Stores `entry` under `key` atomically, then evicts least recently used entries down to the bound.
    /// - Returns: the stamp of the version written; nil when it was not written (too large, store disabled, failure).
    @discardableResult
    package func write(_ entry: CacheEntry, for key: CacheKey) -> PageStamp? {
        let bytes = CacheEntryFormat.encode(entry, key: key)
        guard bytes.count <= maxBytes else {
            // The old version is no longer what the upstream says: it must not be served (nor answers built on it).
            remove(key)
            return nil
        }
        let temporary: String? = state.withLock { state in
            guard state.disabledReason == nil else { return nil }
            state.temporaryCounter += 1
            // Named after this process's instance, so that no other process's start-up removes it mid-write.
            return "\(directory)/\(key.directoryName)/\(key.hex).tmp-\(ledger?.instance ?? "0")-\(state.temporaryCounter)"
        }
        guard let temporary, let ledger else { return nil }
        let path = self.path(for: key)
        // The bytes are counted (and room made) before the entry appears, so the entries on disk never pass the bound.
        let added = bytes.count - (CacheFileSystem.fileInfo(path)?.size ?? 0)
        ledger.withLock { total in
            var pending = (total ?? maxBytes + 1) + added
            if total == nil || pending > maxBytes { evict(total: &pending, adding: added, sparing: key) }
            total = pending
        }
        do throws(CacheFileSystem.Failure) {
            try CacheFileSystem.makeDirectory("\(directory)/\(key.directoryName)")
            try CacheFileSystem.writeAtomically(bytes, to: path, temporary: temporary)
        } catch {
            release(added)
            if error.disablesCache { disable("cache directory \(directory) is unusable: \(error.description)") }
            remove(key)
            return nil
        }
        return state.withLock { state -> PageStamp? in
            Self.dropMemory(key, &state)
            state.useCounter += 1
            state.changeCounter += 1
            let record = Record(size: bytes.count, lastUse: state.useCounter, hitsSinceTouch: 0, generation: state.changeCounter)
            let old = state.records.updateValue(record, forKey: key)
            state.totalBytes += bytes.count - (old?.size ?? 0)
            return PageStamp(key: key, generation: record.generation)
        }
    }

    /// Removes the entry for `key`, if any.
    package func remove(_ key: CacheKey) {
        let path = self.path(for: key)
        // The file goes even without a record here: another process may have written it.
        let size = CacheFileSystem.fileInfo(path)?.size
        state.withLock { state in
            Self.dropRecord(key, &state)
            if size != nil { CacheFileSystem.remove(path) }
        }
        if let size { release(size) }
    }

    /// The entry file's path: `<directory>/<first two hex digits>/<64 hex digits>.entry`.
    package func path(for key: CacheKey) -> String {
        "\(directory)/\(key.directoryName)/\(key.fileName)"
    }

    // MARK: - Private

    private func forget(_ key: CacheKey) {
        state.withLock { state in _ = Self.dropRecord(key, &state) }
    }

    /// Forgets `key`'s record and memory copy; a removal is a change (stamps of it are no longer current).
    /// - Returns: whether there was a record.
    @discardableResult
    private static func dropRecord(_ key: CacheKey, _ state: inout State) -> Bool {
        dropMemory(key, &state)
        guard let record = state.records.removeValue(forKey: key) else { return false }
        state.totalBytes -= record.size
        state.changeCounter += 1
        return true
    }

    /// Keeps a verified entry in memory, unless the file changed since it was read: rewritten or removed by this
    /// process (its generation moved on) or renamed over by another (its inode).
    private func remember(_ entry: CacheEntry, for key: CacheKey, inode: UInt64, generation: UInt64) {
        guard entry.body.count <= memoryLimit else { return }
        state.withLock { state in
            guard state.records[key]?.generation == generation, state.memory[key] == nil,
                CacheFileSystem.inode(path(for: key)) == inode
            else { return }
            if state.memoryBytes + entry.body.count > memoryLimit {
                state.memory = [:]
                state.memoryBytes = 0
            }
            state.memory[key] = entry
            state.memoryBytes += entry.body.count
        }
    }

    private static func dropMemory(_ key: CacheKey, _ state: inout State) {
        if let old = state.memory.removeValue(forKey: key) { state.memoryBytes -= old.body.count }
    }

    /// Under the directory's lock, when the shared total passes the bound: deletes entries down to 90 % of it (so
    /// that eviction does not run on every write), this process's least recently used first, then the other
    /// processes' oldest files. `total` becomes the true total of the files on disk, plus `adding` (a write about to
    /// be renamed into place, whose key is `spared`).
    ///
    /// The store's `Mutex` is held only to copy the use order and, at the end, to forget the victims: the sort and
    /// the `unlink`s run outside it, so lookups (and hits) go on while an eviction runs. The directory's lock stays
    /// held throughout, which keeps the shared total true for every process.
    private func evict(total: inout Int, adding: Int, sparing spared: CacheKey?) {
        let files = Self.scan(directory).entries
        total = files.values.reduce(adding) { $0 + $1.size }
        guard total > maxBytes else { return }
        let target = maxBytes - maxBytes / 10
        let uses = state.withLock { $0.records.map { (key: $0.key, lastUse: $0.value.lastUse) } }
        let ours = uses.sorted { $0.lastUse < $1.lastUse }.map(\.key)
        let known = Set(ours)
        let theirs = files.filter { !known.contains($0.key) }.sorted { $0.value.modified < $1.value.modified }.map(\.key)
        var victims: [CacheKey] = []
        for key in ours + theirs where key != spared {
            guard total > target else { break }
            guard let file = files[key] else { continue }
            victims.append(key)
            total -= file.size
        }
        onEvicting?(victims)
        // A lookup between an unlink and the forgetting below finds no file and forgets the record itself.
        for key in victims { CacheFileSystem.remove(path(for: key)) }
        state.withLock { state in
            for key in victims { Self.dropRecord(key, &state) }
        }
    }

    /// Takes `bytes` off the shared total (an entry removed, a write abandoned).
    private func release(_ bytes: Int) {
        guard bytes != 0 else { return }
        ledger?.withLock { total in total = total.map { max(0, $0 - bytes) } }
    }

    /// Indexes an entry another process wrote.
    private func adopt(_ key: CacheKey, size: Int) {
        state.withLock { state in
            guard state.disabledReason == nil, state.records[key] == nil else { return }
            state.useCounter += 1
            state.changeCounter += 1
            state.records[key] = Record(size: size, lastUse: state.useCounter, generation: state.changeCounter)
            state.totalBytes += size
        }
    }

    /// The entry files under `directory` (size, modification time) and the temporaries' paths.
    private static func scan(_ directory: String) -> (entries: [CacheKey: (size: Int, modified: Int64)], temporaries: [String]) {
        var entries: [CacheKey: (size: Int, modified: Int64)] = [:]
        var temporaries: [String] = []
        for fanOut in CacheFileSystem.names(in: directory) ?? [] where fanOut.utf8.count == 2 {
            let folder = "\(directory)/\(fanOut)"
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

    private func disable(_ reason: String) {
        let first = state.withLock { state -> Bool in
            guard state.disabledReason == nil else { return false }
            state.disabledReason = reason
            return true
        }
        if first { onDisable(reason) }
    }

    /// Proves the directory writable, removes temporaries no live process owns, rebuilds the index and the shared
    /// total (under the directory's lock), and evicts if the directory is over the bound.
    private func open() throws(CacheFileSystem.Failure) {
        guard let ledger else { return }
        let probe = "\(directory)/.probe-\(ledger.instance)"
        try CacheFileSystem.writeAtomically([], to: probe, temporary: probe + ".tmp")
        CacheFileSystem.remove(probe)
        ledger.withLock { total in
            let (files, temporaries) = Self.scan(directory)
            for path in temporaries {
                let name = path.split(separator: "/").last.map(String.init) ?? ""
                // A temporary is removed only once its process is gone: another may be writing it now.
                if let owner = CacheDirectoryLedger.instance(ofTemporary: name), !ledger.isAlive(instance: owner) {
                    CacheFileSystem.remove(path)
                }
            }
            state.withLock { state in
                for (index, file) in files.sorted(by: { $0.value.modified < $1.value.modified }).enumerated() {
                    state.records[file.key] = Record(size: file.value.size, lastUse: UInt64(index + 1), generation: UInt64(index + 1))
                    state.totalBytes += file.value.size
                }
                state.useCounter = UInt64(files.count)
                state.changeCounter = UInt64(files.count)
            }
            var current = files.values.reduce(0) { $0 + $1.size }
            if current > maxBytes { evict(total: &current, adding: 0, sparing: nil) }
            total = current
        }
    }
}

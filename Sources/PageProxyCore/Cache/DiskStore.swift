import Dispatch
import Glibc
import Synchronization

/// Cache entries as files under one directory, bounded in bytes, evicting the least recently used.
///
/// The index (key → size, last use) lives in memory and is rebuilt at start by scanning the directory, ordered by
/// each file's modification time, which a hit refreshes; so the LRU order and the byte bound survive a restart.
/// Temporary files a crash left behind are removed at start. A directory that is missing and cannot be made,
/// unwritable or read-only disables the store: every read misses and every write is skipped, and `onDisable` is told
/// once, with the reason, so the proxy keeps serving uncached; the store tries the directory again every
/// `retryInterval`, and serves again once it works (`onEnable`): one that was working at once, one disabled at its
/// start once it has taken the directory's locks and built its index there. A full volume does not disable it (`write`).
///
/// Only files named like entries (`<2 hex>/<64 hex>.entry`) and their temporaries are ever removed, so a cache
/// directory pointed at the wrong place does not lose anyone's files. Several processes may share the directory
/// (replicas on one volume): they agree on the byte bound and on whose temporaries are whose through
/// `CacheDirectoryLedger`, and each one reads the entries the others wrote.
///
/// The bound: a write is counted in the shared total and renamed into place in one hold of the directory's lock, and
/// only if the total leaves room for it, so the entry files of all the processes never pass `maxBytes`. A write that
/// takes the total past `evictionStart` (95 %) then queues an eviction (on `evictions`, off the writer's thread) down to
/// `evictionTarget` (85 %), which skips if another process is evicting: the victims are chosen and unlinked under the eviction lock only, and subtracted once they are gone, so
/// writers that fit in the room left go on meanwhile. Only a write that does not fit waits, for the eviction under
/// way (then evicts itself if it must).
package final class DiskStore: Sendable {
    private struct Record {
        var size: Int
        var lastUse: UInt64
        /// Hits since this process last refreshed the file's time (nil: never refreshed).
        var hitsSinceTouch: UInt64?
        /// Which write of this process the file holds (see `PageStamp`).
        var generation: UInt64
        /// Where the entry stands in `State.recency`; nil while an eviction has taken it out to look at it.
        var use: RecencyList<CacheKey>.Handle?
        /// Where its copy in memory stands in `State.memoryRecency`, while it has one.
        var memoryUse: RecencyList<CacheKey>.Handle?
        /// The inode of the file this process last wrote or read for the entry (nil: not yet known): another one is
        /// a version another process renamed into place (`noteFileInode`).
        var inode: UInt64? = nil

        /// `hitsSinceTouch` after one more hit; the hit refreshes the file's time when it reaches `interval`.
        func hitsAfterNextUse(interval: UInt64) -> UInt64 { hitsSinceTouch.map { $0 + 1 } ?? interval }
    }

    /// An entry kept with its held file and no body in memory (`State.held`), and the version it is.
    private struct HeldEntry {
        var entry: CacheEntry
        var generation: UInt64
        var use: RecencyList<CacheKey>.Handle
    }

    /// An entry read ahead of the lookups that will want it (`readAhead`), verified and not yet looked up.
    private struct ReadAhead {
        var entry: CacheEntry
        /// The version read: a lookup takes it only while the record still has it.
        var generation: UInt64
        var inode: UInt64
        /// Its file's time was refreshed as it was read, or was recent enough (`CacheFileSystem.touchResolution`): the
        /// lookup that takes it need not refresh it.
        var touched: Bool
        /// The store's use count when it was held: one no lookup took while many others ran was left by a walk that
        /// ended (a client that left, `_max_items`), and may make room for another walk's.
        var heldAtUse: UInt64
    }

    private struct State {
        var records: [CacheKey: Record] = [:]
        /// An eviction of a store found over its bound when it opened is under way (`evictInBackground`).
        var evictingAtStart = false
        /// The records' keys, least recently used first: an eviction takes its victims from the front in short holds
        /// of the lock, not by copying every record under it (issue 13, sixth pass: the epoll loop takes this lock).
        var recency = RecencyList<CacheKey>()
        var totalBytes = 0
        var useCounter: UInt64 = 0
        var disabledReason: String?
        /// `open()` has built the index (a store disabled at its start has none yet).
        var opened = false
        /// The last write found the volume full (`noteVolumeFull`).
        var volumeFull = false
        var writesWithoutSpace = 0
        /// Writes that stored nothing, by why (`/metrics`: attack13 L2, a cache out of inodes stored nothing for good
        /// and nothing showed it but misses).
        var failedWrites: [WriteFailure: Int] = [:]
        var temporaryCounter = 0
        /// Bumped by every write and removal: stamps each write with a new generation, and tells a memo at a glance
        /// that nothing changed since it last looked.
        var changeCounter: UInt64 = 0
        /// Entries read and verified since they were last written, once this process has seen them (see `lookup`):
        /// served again without re-reading the file.
        var memory: [CacheKey: CacheEntry] = [:]
        var memoryBytes = 0
        /// The keys of `memory`, least recently used first: the copies dropped to make room (handles in the records).
        var memoryRecency = RecencyList<CacheKey>()
        /// An eviction is queued and has not started: writes meanwhile need not queue another.
        var evictionQueued = false
        /// Entries whose bodies were verified and left in their held files (`CacheEntry.bodyInFile`), kept with those
        /// files for the next lookup that leaves bodies for the same scan (issue 13, fourteenth pass: the second merged
        /// read-back after a restart neither reads the files again nor faults in copies); at most `heldEntryLimit`, the
        /// least recently used let go first, and dropped with the copy in memory (`dropMemory`).
        var held: [CacheKey: HeldEntry] = [:]
        var heldRecency = RecencyList<CacheKey>()
        /// Entries read ahead (`readAhead`), until a lookup takes them; bounded, the oldest dropped first.
        var readAhead: [CacheKey: ReadAhead] = [:]
        /// The keys read ahead, oldest first (some may have been taken since).
        var readAheadOrder: [CacheKey] = []
        var readAheadBytes = 0
        /// Entries let go under the lock that may hold an entry file open (kept with it, or read ahead with it): released
        /// after the lock by `withStateReleasing`, so that their descriptors do not close under the lock the epoll loop
        /// takes (review19 R2).
        var released: [CacheEntry] = []
        /// Lookups that read their entry's file (not a copy in memory, not one read ahead).
        var fileReads = 0
        /// Keys offered to `readAhead`.
        var readAheadAsked = 0
        /// The cache directory, held open: entry files are opened and checked under it (nil until `open()`).
        var entryDirectory: EntryDirectory?
        /// When `entryDirectory` is next compared with the directory at its path (`DispatchTime` nanoseconds).
        var entryDirectoryCheckAt: UInt64 = 0
    }

    package let directory: String
    package let maxBytes: Int
    private let state = Mutex(State())

    /// `state.withLock`, with the entries `body` let go (`State.released`) released after the lock.
    private func withStateReleasing<T>(_ body: (inout State) -> T) -> T {
        let (result, released) = state.withLock { state -> (T, [CacheEntry]) in
            let result = body(&state)
            defer { state.released = [] }
            return (result, state.released)
        }
        _ = released
        return result
    }
    /// The length of the last entry head read (`readEntryFile`'s guess for the next); 0 before the first.
    private let lastHeadLength = Atomic<Int>(0)
    private let onDisable: @Sendable (String) -> Void
    /// A hit refreshes the file's time at most once per this many hits of that entry (cheap LRU persistence: a
    /// system call per page per request was 3 % of a cached walk, issue 13).
    private let touchInterval: UInt64 = 64
    /// The most body bytes kept in memory; past it the least recently used copies are dropped (the files stay).
    private let memoryLimit: Int
    /// How many records an eviction looks at, or forgets, in one hold of the store's lock (the epoll loop takes it).
    package let evictionBatch: Int
    /// The most entries, and body bytes, held read ahead and not yet looked up: a walk that stops early (its client
    /// left, `_max_items`) leaves at most this much behind.
    static let readAheadLimit = 64
    private var readAheadByteLimit: Int { min(memoryLimit, 8 << 20) }
    /// The total bytes and the live processes that share the directory; nil while the directory has been unusable
    /// since the start (taken when it works, `tryToEnable`).
    private var ledger: CacheDirectoryLedger? { ledgerSlot.withLock { $0 } }
    private let ledgerSlot: Mutex<CacheDirectoryLedger?>
    /// Told the victims of an eviction once they are chosen, before their files are removed (tests hold it there).
    private let onEvicting: (@Sendable ([CacheKey]) -> Void)?
    /// Told before and after the eviction of a store found over its bound when it opened.
    private let onStartEviction: (@Sendable (CacheStartEviction) -> Void)?
    /// Told as a write begins, on the thread that runs it (tests hold it there: a disk that stalls).
    private let onWriting: (@Sendable (CacheKey) -> Void)?
    /// Told once a write's record names the version it wrote, before the write returns (tests look up there).
    private let onWritten: (@Sendable (CacheKey) -> Void)?
    /// Told when a write finds the volume full, once until a write succeeds again (the proxy logs it).
    private let onVolumeFull: (@Sendable (_ reason: String, _ outOfInodes: Bool) -> Void)?
    /// Told when a disabled store finds its directory usable again and serves again (the proxy logs it).
    private let onEnable: (@Sendable () -> Void)?
    /// How often a disabled store tries its directory again (`tryToEnable`).
    private let retryInterval: Duration
    /// How many entry files may stay open for sending from (`HeldEntryFile`), shared with every store by default.
    private let heldFiles: HeldEntryFileBudget
    /// An `errno` a write fails with before it touches the disk, or nil (tests: a full volume without mounting one).
    private let failWriting: (@Sendable (CacheKey) -> Int32?)?
    /// Reads the volume under a directory when a write found no space (tests: a small or inode-less volume without
    /// mounting one).
    private let readVolume: @Sendable (String) -> CacheVolume?
    /// Where the evictions that writes start run, one at a time: not on the writer's thread, so neither the writer
    /// nor the writes queued behind it on its `DiskWork` lane wait for a directory scan and the victims' unlinks.
    private let evictions = DispatchQueue(label: "PageProxy.DiskStore.evictions")

    /// A write that takes the shared total past this evicts (if no eviction is under way).
    package var evictionStart: Int { maxBytes - maxBytes / 20 }
    /// What an eviction brings the shared total down to.
    package var evictionTarget: Int { maxBytes - maxBytes / 20 * 3 }

    /// Opens (creating if needed) the store at `directory`; a store that cannot be used is returned disabled.
    package init(
        directory: String, maxBytes: Int, onDisable: @escaping @Sendable (String) -> Void = { _ in },
        onEvicting: (@Sendable ([CacheKey]) -> Void)? = nil, onWriting: (@Sendable (CacheKey) -> Void)? = nil,
        memoryLimit: Int? = nil, evictionBatch: Int = 256, onVolumeFull: (@Sendable (_ reason: String, _ outOfInodes: Bool) -> Void)? = nil,
        failWriting: (@Sendable (CacheKey) -> Int32?)? = nil, onEnable: (@Sendable () -> Void)? = nil, retryInterval: Duration = .seconds(30),
        heldFiles: HeldEntryFileBudget = .none, onWritten: (@Sendable (CacheKey) -> Void)? = nil,
        readVolume: @escaping @Sendable (String) -> CacheVolume? = CacheVolume.of,
        onStartEviction: (@Sendable (CacheStartEviction) -> Void)? = nil
    ) {
        self.onStartEviction = onStartEviction
        self.onWritten = onWritten
        self.readVolume = readVolume
        self.heldFiles = heldFiles
        self.directory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        self.maxBytes = max(0, maxBytes)
        self.onDisable = onDisable
        self.onEvicting = onEvicting
        self.onWriting = onWriting
        self.onVolumeFull = onVolumeFull
        self.failWriting = failWriting
        self.onEnable = onEnable
        self.retryInterval = retryInterval
        self.memoryLimit = memoryLimit ?? min(self.maxBytes, 64 << 20)
        self.evictionBatch = max(1, evictionBatch)
        var ledger: CacheDirectoryLedger?
        var failure: CacheFileSystem.Failure?
        do throws(CacheFileSystem.Failure) {
            try CacheFileSystem.makeDirectory(self.directory)
            ledger = try CacheDirectoryLedger(directory: self.directory)
        } catch {
            failure = error
        }
        ledgerSlot = Mutex(ledger)
        do throws(CacheFileSystem.Failure) {
            if let failure { throw failure }
            try open()
        } catch {
            disable("cache directory \(self.directory) is unusable: \(error.description)")
        }
    }

    /// Returns once the evictions queued so far have run (tests; nothing else needs to). Suspends, never blocks: a
    /// caller on the cooperative pool holds none of its threads meanwhile.
    package func waitForEvictions() async {
        await withCheckedContinuation { continuation in evictions.async { continuation.resume() } }
    }

    /// This process's id among those sharing the directory (it names their temporary files); nil when unusable.
    package var instance: String? { ledger?.instance }

    /// Nil while the store works; otherwise why it was disabled.
    package var disabledReason: String? { state.withLock { $0.disabledReason } }
    package var isEnabled: Bool { disabledReason == nil }
    /// Whether the store, over its bound when it opened, is still being brought down (`CacheStartEviction`).
    package var isEvictingAtStart: Bool { state.withLock { $0.evictingAtStart } }
    /// The bytes of every entry file in the index.
    package var totalBytes: Int { state.withLock { $0.totalBytes } }
    package var entryCount: Int { state.withLock { $0.records.count } }

    package func contains(_ key: CacheKey) -> Bool { state.withLock { $0.records[key] != nil } }

    /// Whether a copy of `key`'s entry is held in memory (served without reading its file).
    package func holdsInMemory(_ key: CacheKey) -> Bool { state.withLock { $0.memory[key] != nil } }

    /// The body bytes of the entries kept in memory (never more than the memory bound).
    package var memoryByteCount: Int { state.withLock { $0.memoryBytes } }

    /// Whether the entry for `key` is kept with its held file, its body not in memory (`State.held`; tests).
    package func holdsInFile(_ key: CacheKey) -> Bool { state.withLock { $0.held[key] != nil } }

    /// The most entries kept with their held files: half the budget, the rest for answers being sent.
    private var heldEntryLimit: Int { heldFiles.capacity / 2 }

    /// Whether the entry for `key` is held read ahead, not yet taken by a lookup (tests).
    package func holdsReadAhead(_ key: CacheKey) -> Bool { state.withLock { $0.readAhead[key] != nil } }

    /// How many lookups had to read their entry's file (not a copy in memory, not one read ahead): a walk whose
    /// lookups do not move it has nothing to gain from `readAhead`.
    package var fileReadCount: Int { state.withLock { $0.fileReads } }

    /// How many keys were offered to `readAhead` (tests: a walk asked for its pages to be read ahead).
    package var readAheadAskedCount: Int { state.withLock { $0.readAheadAsked } }

    /// How many uses (lookups that found an entry, and writes) this store has counted: `readAhead(_:unusedSince:)`
    /// skips the entries used after it was taken.
    package var useCount: UInt64 { state.withLock { $0.useCounter } }

    /// How many entries are held read ahead and not yet looked up.
    package var readAheadCount: Int { state.withLock { $0.readAhead.count } }

    /// How many writes and removals this store has seen: unchanged means every stamp taken before is still current.
    package var changeCount: UInt64 { state.withLock { $0.changeCounter } }

    /// Whether every page in `stamps` is still the version stamped (not rewritten by a 200 or a 304, removed or
    /// evicted, the store not disabled): the store's `changeCount` when that was checked, or nil when one is not.
    package func changeCount(ifCurrent stamps: some Sequence<PageStamp>) -> UInt64? {
        state.withLock { state in
            guard state.disabledReason == nil else { return nil }
            return stamps.allSatisfy { state.records[$0.key]?.generation == $0.generation } ? state.changeCounter : nil
        }
    }

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
    package func lookupInline(_ key: CacheKey, keepsFirstRead: Bool = false, leavesBodyFor: UInt64? = nil) -> InlineLookup {
        lookup(key, wait: .pageCacheOnly, keepsFirstRead: keepsFirstRead, leavesBodyFor: leavesBodyFor)
    }

    /// As `lookupInline`, for an entry kept in memory that `isUsable` accepts (a fresh one) only: any other lookup is
    /// nil and records nothing (no use, no file read), for the caller to ask `lookupInline` or `lookup` later.
    package func lookupInMemory(_ key: CacheKey, if isUsable: (CacheEntry) -> Bool) -> (entry: CacheEntry, stamp: PageStamp)? {
        let found: (entry: CacheEntry, generation: UInt64)? = state.withLock { state in
            guard state.disabledReason == nil, var record = state.records[key], let entry = state.memory[key], isUsable(entry) else { return nil }
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

    private func lookup(_ key: CacheKey, wait: CacheFileSystem.ReadWait, keepsFirstRead: Bool, leavesBodyFor: UInt64?) -> InlineLookup {
        // Only a caller that holds the entry and sends it from its file may be given a body left there.
        let leavesBodyFor = keepsFirstRead ? leavesBodyFor : nil
        var found = use(key, leavesBodyFor: leavesBodyFor)
        // Unknown here: a file another process wrote is indexed, then used.
        if case .unknown = found, ledger != nil, let info = CacheFileSystem.fileInfo(path(for: key)) {
            adopt(key, size: info.size)
            found = use(key, leavesBodyFor: leavesBodyFor)
        }
        guard case .used(let shouldTouch, let remembered, let ahead, let generation, let seen, let entries) = found else { return .missing }
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
            // The read-ahead checked the file's inode after its read (issue 13, ninth pass: a second path `stat` here
            // for every entry read ahead).
            guard let version = noteFileInode(key, ahead.inode, readUnder: generation) else { return .missing }
            if entry.bodyInFile != nil {
                keepHeld(entry, for: key, generation: version)
            } else if seen || keepsFirstRead && entry.file == nil {
                remember(entry, for: key, inode: ahead.inode, generation: version, checkIn: nil)
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
                return lookup(key, wait: wait, keepsFirstRead: keepsFirstRead, leavesBodyFor: nil)
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
                remember(entry, for: key, inode: file.inode, generation: version, checkIn: file.directory)
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
    private func changedInPlace(_ key: CacheKey) -> @Sendable (UInt64) -> Void {
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
        case used(touch: Bool, memory: CacheEntry?, ahead: ReadAhead?, generation: UInt64, seen: Bool, entries: HeldDirectory?)
    }

    /// The directory an entry file is read under, and whether it is time to compare it with the directory now at the
    /// store's path (`EntryDirectory`).
    private typealias HeldDirectory = (directory: EntryDirectory, checkDue: Bool)

    /// How often a lookup or read-ahead that reads a file first makes sure the held directory is still the one at the
    /// store's path: a directory replaced under a running store is read through the old one at most this long.
    private static let entryDirectoryCheckInterval: UInt64 = 1_000_000_000

    /// Records a use of `key`'s entry, in one hold of the lock, hashing the key as few times as it can: once for the
    /// record (read and written back by its index), once for a copy in memory only when the record says there is one,
    /// once for the entries read ahead only when there are any (issue 13, seventh pass: five hashes of the key, and a
    /// second hold of the lock for `contains`, were ~4 % of a warm read-back).
    /// A body-less entry read ahead (`CacheEntry.bodyInFile`) is taken only by a lookup that leaves bodies for its scan
    /// signature (`leavesBodyFor`); for any other it is dropped, and the lookup reads the file (review16 B3).
    private func use(_ key: CacheKey, leavesBodyFor: UInt64?) -> Use {
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
            var memory = record.memoryUse == nil ? nil : state.memory[key]
            // Else one kept with its held file, for a lookup that leaves bodies for its scan.
            if memory == nil, let leavesBodyFor, let held = state.held[key], held.generation == record.generation,
                held.entry.scan?.signature == leavesBodyFor
            {
                state.heldRecency.moveToNewest(held.use)
                memory = held.entry
            }
            var ahead = state.readAhead.isEmpty ? nil : Self.takeReadAhead(key, generation: record.generation, &state)
            if let body = ahead?.entry, body.bodyInFile != nil, leavesBodyFor == nil || body.scan?.signature != leavesBodyFor {
                refused = ahead
                ahead = nil
            }
            var entries: HeldDirectory?
            if memory == nil, ahead == nil {
                state.fileReads += 1
                entries = Self.entryDirectory(&state)
            }
            return .used(touch: touch, memory: memory, ahead: ahead, generation: record.generation, seen: seen, entries: entries)
        }
    }

    /// Reads and verifies the entries of `keys` that are neither in memory nor read ahead already, and holds them
    /// for the lookups that will want them (issue 13: a walk through entries after a restart read each file on its
    /// own thread, one after another). Blocks on the disk: run it off the cooperative pool, on a thread that is not
    /// the walk's, so that the walk's lookups find the entries read.
    ///
    /// Nothing here is a use: the LRU order moves when a lookup takes an entry. A file whose next hit would refresh
    /// its time is refreshed as it is read (through its descriptor), so that the lookup need not. An entry rewritten
    /// or removed before a lookup takes it (its generation moved on) is dropped, never served; one renamed over by
    /// another process before it is held is not held (its inode), as for the copies `lookup` keeps in memory. A torn
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
                guard state.memory[key] == nil, state.readAhead[key] == nil, record.size <= readAheadByteLimit else { return .skip }
                // Kept with its held file for this very walk's lookups: nothing to read.
                if let leavesBodyFor, state.held[key]?.entry.scan?.signature == leavesBodyFor { return .skip }
                guard Self.hasRoom(for: record.size, limit: readAheadByteLimit, &state) else { return .full }
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
                keep(entry), file.directory.inode(key.relativePath) == file.inode
            else { continue }
            withStateReleasing { state in
                guard state.records[key]?.generation == generation, state.memory[key] == nil, state.readAhead[key] == nil,
                    Self.hasRoom(for: entry.bodyCount, limit: readAheadByteLimit, &state)
                else { return }
                state.readAhead[key] = ReadAhead(entry: entry, generation: generation, inode: file.inode, touched: touch, heldAtUse: state.useCounter)
                state.readAheadOrder.append(key)
                // Counted by its body's length, also when the body was left in its file (review19 R1: counted as 0
                // bytes, a walk's read-ahead was bounded only by the descriptors it could take).
                state.readAheadBytes += entry.bodyCount
                // Keys taken by lookups stay in the order until they reach its front: keep it from growing past them.
                if state.readAheadOrder.count > 2 * Self.readAheadLimit {
                    let held = state.readAhead
                    state.readAheadOrder.removeAll { held[$0] == nil }
                }
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

    /// Whether `bytes` more may be read ahead; when not, drops the entries left by walks that ended (held while
    /// `readAheadLimit` × 2 lookups ran and none took them), oldest first, and asks again.
    private static func hasRoom(for bytes: Int, limit: Int, _ state: inout State) -> Bool {
        func fits(_ state: State) -> Bool { state.readAhead.count < readAheadLimit && state.readAheadBytes + bytes <= limit }
        while !fits(state), let oldest = state.readAheadOrder.first {
            guard let held = state.readAhead[oldest] else {
                state.readAheadOrder.removeFirst()
                continue
            }
            guard state.useCounter - held.heldAtUse > 2 * UInt64(readAheadLimit) else { return false }
            state.readAheadOrder.removeFirst()
            state.readAhead[oldest] = nil
            state.readAheadBytes -= held.entry.bodyCount
            state.released.append(held.entry)
        }
        return fits(state)
    }

    /// Stores `entry` under `key` atomically, then queues an eviction of least recently used entries if the shared
    /// total passed `evictionStart`. Blocks on the disk: callers on the cooperative pool run it on a `DiskWork` lane.
    /// - Returns: the stamp of the version written; nil when it was not written (too large, store disabled, no room
    ///   made after a few evictions, failure).
    /// - Parameter synced: its bytes reach the disk before its name does (`CacheFileSystem.writeTemporary`).
    @discardableResult
    package func write(_ entry: CacheEntry, for key: CacheKey, synced: Bool = false) -> PageStamp? {
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
                    evict(making: bytes.count, sparing: key, wait: true)
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
            if let room = volume, !room.isOutOfInodes, !room.couldHold(bytes.count, evicting: ledger.withLock { $0 } ?? 0) {
                noteFailedWrite(.largerThanVolume)
                CacheFileSystem.remove(temporary)
                remove(key)
                return nil
            }
            evict(making: 0, sparing: key, wait: true, freeing: bytes.count * 2)
        }
        guard case .success(let (total, leftAt)) = placed else {
            switch placed {
            case .failure(let error) where error.meansNoSpace: noteFailedWrite(volume?.isOutOfInodes == true ? .noInodes : .noSpace)
            case .failure: noteFailedWrite(.error)
            default: noteFailedWrite(.noRoom)
            }
            CacheFileSystem.remove(temporary)
            if case .failure(let error) = placed, error.disablesCache {
                disable("cache directory \(directory) is unusable: \(error.description)")
            }
            // Not stored: the old version is no longer what the upstream says (as for an entry too large).
            remove(key)
            return nil
        }
        // Written by path: if the directory there is not the one reads go through any more, reads follow it now, before
        // the record names the new version (review9 B4: a lookup between the two read the old file through the old
        // directory under the new record, took its inode for another process's newer version, and kept it).
        if let held = state.withLock({ $0.entryDirectory }), !held.isCurrent { _ = replaceEntryDirectory(held) }
        let stamp = withStateReleasing { state -> PageStamp in
            state.volumeFull = false
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

    /// Takes `key`'s file aside and subtracts its size in one hold of the directory's lock (a rescan under it sees
    /// the same as the total; of two removals racing, one `rename` wins and only it subtracts), then unlinks it.
    /// - Parameter inode: only the file with this inode (the one a lookup found corrupt), not a version renamed in since.
    private func takeAside(_ key: CacheKey, ifInode inode: UInt64? = nil) {
        guard let ledger, let aside = temporaryNames(for: key)?.aside else { return }
        let path = self.path(for: key)
        let removed = ledger.withLock { (total: inout Int?) -> Int? in
            if let inode, CacheFileSystem.inode(path) != inode { return nil }
            guard let size = detachEntry(key, to: aside) else { return nil }
            total = total.map { max(0, $0 - size) }
            return size
        }
        if removed != nil { CacheFileSystem.remove(aside) }
    }

    /// The entry file's path: `<directory>/<first two hex digits>/<64 hex digits>.entry`.
    package func path(for key: CacheKey) -> String {
        "\(directory)/\(key.relativePath)"
    }

    // MARK: - Private

    /// An entry file as read: its head and body, its inode, its descriptor when held, and the directory it was read
    /// under (the one to check its inode in again).
    private struct EntryFile {
        var head: [UInt8]
        var tail: [UInt8]
        var inode: UInt64
        var file: HeldEntryFile?
        var directory: EntryDirectory
        /// Read through a reused buffer (`CacheFileSystem.readHashingBody`): the head decoded as it was read, and the
        /// body's length and XXH64 as read (`tail` holds the body only when it was kept).
        var hashed: Hashed?

        struct Hashed {
            var head: Result<CacheEntry, CacheEntryFormat.Invalid>
            var bodyLength: Int
            var bodyRead: Int
            var bodyHash: UInt64
            var keptBody: Bool
        }

        /// The entry, verified, with its held file; its body left in that file when it was not kept
        /// (`CacheEntry.bodyInFile`). Nil when it was not kept and the file could not be held (the budget filled
        /// meanwhile): the caller reads it again as a whole.
        func entry(for key: CacheKey) throws(CacheEntryFormat.Invalid) -> CacheEntry? {
            guard let hashed else {
                var entry = try CacheEntryFormat.decode(head: head, body: tail, key: key)
                entry.file = file
                return entry
            }
            var entry = try hashed.head.get()
            guard hashed.bodyRead == hashed.bodyLength else { throw .lengthMismatch }
            guard hashed.bodyHash == entry.bodyChecksum else { throw .checksumMismatch }
            if hashed.keptBody {
                entry.body = tail
            } else {
                guard let file else { return nil }
                entry.bodyInFile = BodyInFile(file: file, length: hashed.bodyLength, checksum: entry.bodyChecksum)
            }
            entry.file = file
            return entry
        }
    }

    /// An entry file read in two parts, head and body (see `CacheFileSystem.read`), guessing that its head is as long
    /// as the last one read: the entries of a route have heads of one length, so most are read with one call.
    /// With `holdsFile`, the file stays open for sending from while `heldFiles` has room (`HeldEntryFile`).
    /// Read under the held directory (`EntryDirectory`), compared first with the one at the store's path when that is
    /// due; a file missing there is looked for again under the directory now at the path, if that is another.
    ///
    /// With `leavesBodyFor` (and `holdsFile`) and room in the budget, the file is read through the thread's reused
    /// buffer, its body hashed as it passes and kept only when the entry's stored scan is not for that signature
    /// (`EntryFile.hashed`; issue 13, fourteenth pass).
    private func readEntryFile(
        _ key: CacheKey, in held: HeldDirectory, touch: Bool, wait: CacheFileSystem.ReadWait, holdsFile: Bool = false,
        leavesBodyFor signature: UInt64? = nil
    ) throws(CacheFileSystem.Failure) -> EntryFile? {
        var directory = held.checkDue && !held.directory.isCurrent ? replaceEntryDirectory(held.directory) : held.directory
        let guess = lastHeadLength.load(ordering: .relaxed)
        let onChanged = holdsFile ? changedInPlace(key) : nil
        func read(_ directory: EntryDirectory) throws(CacheFileSystem.Failure) -> EntryFile? {
            if holdsFile, let signature, heldFiles.hasRoom {
                return try readHashing(key, in: directory, touch: touch, wait: wait, leavingBodyFor: signature, onChanged: onChanged)
            }
            let file = try directory.locate(key.relativePath) { (fd, path) throws(CacheFileSystem.Failure) in
                try CacheFileSystem.read(
                    path, in: fd, headLength: CacheEntryFormat.headLength(of:), fileLength: CacheEntryFormat.fileLength(of:),
                    guessedHeadLength: guess == 0 ? nil : guess, touch: touch,
                    wait: wait, holding: holdsFile ? heldFiles : nil, onChanged: onChanged)
            }
            return file.map { EntryFile(head: $0.head, tail: $0.tail, inode: $0.inode, file: $0.file, directory: directory) }
        }
        var file = try read(directory)
        if file == nil, !held.checkDue, !directory.isCurrent {
            directory = replaceEntryDirectory(directory)
            file = try read(directory)
        }
        if let file, file.head.count != guess { lastHeadLength.store(file.head.count, ordering: .relaxed) }
        return file
    }

    /// `key`'s file read under `directory` through the thread's reused buffer (`readEntryFile` with `leavesBodyFor`).
    private func readHashing(
        _ key: CacheKey, in directory: EntryDirectory, touch: Bool, wait: CacheFileSystem.ReadWait, leavingBodyFor signature: UInt64,
        onChanged: (@Sendable (UInt64) -> Void)?
    ) throws(CacheFileSystem.Failure) -> EntryFile? {
        var head: Result<CacheEntry, CacheEntryFormat.Invalid> = .failure(.tooShort)
        var expectedLength = 0
        let read = try directory.locate(key.relativePath) { (fd, path) throws(CacheFileSystem.Failure) in
            try CacheFileSystem.readHashingBody(
                path, in: fd, headLength: CacheEntryFormat.headLength(of:), fileLength: CacheEntryFormat.fileLength(of:), touch: touch,
                wait: wait, holding: heldFiles, onChanged: onChanged
            ) { bytes, bodyLength in
                expectedLength = bodyLength
                head = Result { () throws(CacheEntryFormat.Invalid) in try CacheEntryFormat.decodeHead(bytes, bodyLength: bodyLength, key: key) }
                // Kept for a walk with other paths (its scan is not stored for them), and when there is no file to
                // leave it in; a corrupt head is a miss either way.
                guard case .success(let entry) = head else { return false }
                return entry.scan?.signature != signature || !heldFiles.hasRoom
            }
        }
        guard let read else { return nil }
        let hashed = EntryFile.Hashed(
            head: head, bodyLength: expectedLength, bodyRead: read.bodyRead, bodyHash: read.bodyHash, keptBody: read.body != nil)
        return EntryFile(head: read.head, tail: read.body ?? [], inode: read.inode, file: read.file, directory: directory, hashed: hashed)
    }

    /// The held directory and whether it is time to check it (`HeldDirectory`); nil before `open()`.
    private static func entryDirectory(_ state: inout State) -> HeldDirectory? {
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
    private func replaceEntryDirectory(_ stale: EntryDirectory?) -> EntryDirectory {
        let fresh = EntryDirectory(path: directory)
        typealias Forgotten = (memory: [CacheKey: CacheEntry], readAhead: [CacheKey: ReadAhead])
        let (held, forgotten) = state.withLock { state -> (EntryDirectory, Forgotten?) in
            if let held = state.entryDirectory, held !== stale { return (held, nil) }
            let replaced = state.entryDirectory != nil
            state.entryDirectory = fresh
            state.entryDirectoryCheckAt = DispatchTime.now().uptimeNanoseconds + Self.entryDirectoryCheckInterval
            return (fresh, replaced ? Self.forgetVersions(&state) : nil)
        }
        withExtendedLifetime(forgotten) {}  // the copies' memory and held descriptors let go outside the lock
        return held
    }

    private func forget(_ key: CacheKey) {
        withStateReleasing { state in _ = Self.dropRecord(key, &state) }
    }

    /// Forgets `key`'s record and memory copy; a removal is a change (stamps of it are no longer current).
    /// - Returns: whether there was a record.
    @discardableResult
    private static func dropRecord(_ key: CacheKey, _ state: inout State) -> Bool {
        dropMemory(key, &state)
        guard let record = state.records.removeValue(forKey: key) else { return false }
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
    private func noteFileInode(
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
            if let held = state.withLock({ $0.entryDirectory }), !held.isCurrent { replaceEntryDirectory(held) }
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

    /// Keeps a verified entry in memory, unless the file changed since it was read: rewritten or removed by this
    /// process (its generation moved on) or renamed over by another (its inode).
    /// - Parameter checkIn: the directory to check the file's inode in; nil when the caller checked it after its read.
    private func remember(_ entry: CacheEntry, for key: CacheKey, inode: UInt64, generation: UInt64, checkIn directory: EntryDirectory?) {
        // Another process's rename is not ordered by this lock anyway: its inode is checked before it, not under it (a
        // `stat` under the store's lock made the walk and the read-ahead thread wait on each other; issue 13).
        // A body left in its file is no copy in memory (issue 13, fourteenth pass): never kept here.
        guard entry.bodyInFile == nil, entry.body.count <= memoryLimit, directory.map({ $0.inode(key.relativePath) == inode }) ?? true else { return }
        // A copy kept in memory holds no descriptor (the budget is for answers being sent).
        let entry = entry.withoutFile
        // The copies dropped to make room are freed here, after the lock (the epoll loop may be waiting for it).
        let dropped = state.withLock { state -> [CacheEntry] in
            guard state.records[key]?.generation == generation, state.memory[key] == nil else { return [] }
            // The least recently used copies make room, not the whole map: a walk bigger than the bound dropped the hot
            // entries of every other route each time it passed it (issue 13, sixth pass).
            // At most `evictionBatch` a hold, as an eviction: a large page among many small copies is kept from a
            // later read, once enough have gone (review: thousands dropped in one hold of the loop's lock).
            var dropped: [CacheEntry] = []
            while state.memoryBytes + entry.body.count > memoryLimit, dropped.count < evictionBatch,
                let oldest = state.memoryRecency.removeOldest()
            {
                state.records[oldest]?.memoryUse = nil
                if let old = state.memory.removeValue(forKey: oldest) {
                    state.memoryBytes -= old.body.count
                    dropped.append(old)
                }
            }
            guard state.memoryBytes + entry.body.count <= memoryLimit else { return dropped }
            state.memory[key] = entry
            state.memoryBytes += entry.body.count
            state.records[key]?.memoryUse = state.memoryRecency.insertNewest(key)
            return dropped
        }
        _ = dropped
    }

    /// Moves `key` to the most recently used end of the records' order (and of the copies in memory, if it has one),
    /// putting it back if an eviction had taken it out.
    private static func markUsed(_ key: CacheKey, _ record: inout Record, _ state: inout State) {
        if let use = record.use { state.recency.moveToNewest(use) } else { record.use = state.recency.insertNewest(key) }
        if let use = record.memoryUse { state.memoryRecency.moveToNewest(use) }
    }

    /// Keeps an entry verified with its body left in its held file (`State.held`) for the lookups that leave bodies for
    /// its scan, unless the record moved on since it was read; the least recently used let go to make room (their
    /// descriptors closed after the lock).
    private func keepHeld(_ entry: CacheEntry, for key: CacheKey, generation: UInt64) {
        let limit = heldEntryLimit
        guard entry.bodyInFile != nil, limit > 0 else { return }
        let dropped = state.withLock { state -> [CacheEntry] in
            guard state.records[key]?.generation == generation, state.held[key] == nil else { return [] }
            var dropped: [CacheEntry] = []
            while state.held.count >= limit, let oldest = state.heldRecency.removeOldest() {
                if let old = state.held.removeValue(forKey: oldest) { dropped.append(old.entry) }
            }
            state.held[key] = HeldEntry(entry: entry, generation: generation, use: state.heldRecency.insertNewest(key))
            return dropped
        }
        _ = dropped
    }

    /// Lets go of `key`'s entry kept with its held file (the descriptor closes when the last answer sending from it ends).
    private static func dropHeld(_ key: CacheKey, _ state: inout State) {
        guard let old = state.held.removeValue(forKey: key) else { return }
        state.heldRecency.remove(old.use)
        state.released.append(old.entry)
    }

    private static func dropMemory(_ key: CacheKey, _ state: inout State) {
        dropHeld(key, &state)
        if let old = state.memory.removeValue(forKey: key) {
            state.memoryBytes -= old.body.count
            if let use = state.records[key]?.memoryUse {
                state.memoryRecency.remove(use)
                state.records[key]?.memoryUse = nil
            }
        }
        if let old = state.readAhead.removeValue(forKey: key) {
            state.readAheadBytes -= old.entry.bodyCount
            state.released.append(old.entry)
        }
    }

    /// The entry read ahead for `key`, taken (a lookup uses it once), when it is still the version `generation`.
    private static func takeReadAhead(_ key: CacheKey, generation: UInt64, _ state: inout State) -> ReadAhead? {
        guard let ahead = state.readAhead.removeValue(forKey: key) else { return nil }
        state.readAheadBytes -= ahead.entry.bodyCount
        guard ahead.generation == generation else {
            state.released.append(ahead.entry)
            return nil
        }
        return ahead
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
            throw CacheFileSystem.Failure(call: "open", path: folder, errno: ELOOP)
        }
    }

    /// Moves `key`'s entry file aside (`CacheFileSystem.detach`), unless its fan-out folder is a link out of the
    /// directory (attack15 L1: eviction removed files named like entries elsewhere).
    private func detachEntry(_ key: CacheKey, to aside: String) -> Int? {
        guard CacheFileSystem.isOwnDirectory("\(directory)/\(key.directoryName)") else { return nil }
        return CacheFileSystem.detach(path(for: key), to: aside)
    }

    /// Two names beside `key`'s entry no other writer uses: where its bytes are written, and where the version it
    /// replaces is moved aside. Named after this process's instance, so that no other process's start-up removes them
    /// while it lives, and its own next start removes what a crash left. Nil when the store is disabled.
    private func temporaryNames(for key: CacheKey) -> (temporary: String, aside: String)? {
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
        ledger.withLock { (total: inout Int?) -> Result<(total: Int, leftAt: String?), CacheFileSystem.Failure>? in
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
    }

    /// Queues an eviction on `evictions`, unless one is queued and has not started yet.
    private func queueEviction() {
        let queues = state.withLock { state -> Bool in
            defer { state.evictionQueued = true }
            return !state.evictionQueued
        }
        guard queues else { return }
        evictions.async { [self] in
            // Writes from now on may queue the next one: this one may be past the total they see.
            state.withLock { $0.evictionQueued = false }
            evict(making: 0, sparing: nil, wait: false)
        }
    }

    /// Evicts least recently used entries, this process's first, then the other processes' oldest files, until the
    /// shared total is at most `evictionTarget` less `making` (room a write waits for); nothing when it is already
    /// below `evictionStart` (or leaves room for `making`). Holds the eviction lock throughout, so two evictions do not
    /// pick the same victims; with `wait` false it returns at once when another eviction is under way.
    ///
    /// The directory scan, the sort and the `unlink`s run outside the directory's lock and the store's `Mutex`:
    /// writes that fit, and lookups, go on. Each victim is taken aside (`detach`) and then removed, and the bytes
    /// actually removed are subtracted from the total afterwards, so a process killed mid-eviction leaves the total
    /// too high, never too low. A lookup that finds a victim's file gone treats it as a miss.
    private func evict(making room: Int, sparing spared: CacheKey?, wait: Bool, freeing: Int = 0) {
        guard let ledger else { return }
        ledger.withEvictionLock(wait: wait) {
            // Another eviction may have made the room while this one waited: then no scan at all.
            let before = ledger.withLock { $0 }
            if freeing == 0, let before, room > 0 ? before + room <= maxBytes : before <= evictionStart { return }
            let files = Self.scan(directory).entries
            let scanned = files.values.reduce(0) { $0 + $1.size }
            let known: Int = ledger.withLock { total in
                // Unknown (a new or damaged lock file), or far above the files (left by killed processes): the true
                // total from a rescan. Exact under both locks: every rename and removal is counted in one hold of the
                // directory's lock, and no other eviction has victims aside.
                if total.map({ $0 - scanned > maxBytes / 10 }) ?? true {
                    total = Self.scan(directory).entries.values.reduce(0) { $0 + $1.size }
                }
                return total ?? 0
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
                    guard remaining > target, key != spared, let file = files[key], chosen.insert(key).inserted else {
                        passed.append(key)
                        continue
                    }
                    victims.append(key)
                    remaining -= file.size
                }
            }
            // Then the other processes' files, oldest first: those this process has no record of.
            if remaining > target {
                let sorted = files.sorted { $0.value.modified < $1.value.modified }
                var start = 0
                while remaining > target, start < sorted.count {
                    let slice = sorted[start..<min(sorted.count, start + evictionBatch)]
                    start = slice.endIndex
                    let unknown = state.withLock { state in slice.filter { state.records[$0.key] == nil } }
                    for file in unknown where remaining > target && file.key != spared {
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
            release(removed)
            removeEmptyFolders(of: gone)
            // A lookup between an unlink and the forgetting below finds no file and forgets the record itself. In
            // batches, and the copies in memory freed after each hold of the lock.
            for start in stride(from: 0, to: gone.count, by: evictionBatch) {
                let freed = withStateReleasing { state in
                    gone[start..<min(gone.count, start + evictionBatch)].compactMap { key -> CacheEntry? in
                        let copy = state.memory[key]
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

    /// Takes `bytes` off the shared total (entries removed).
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
            state.records[key] = Record(
                size: size, lastUse: state.useCounter, generation: state.changeCounter, use: state.recency.insertNewest(key))
            state.totalBytes += size
        }
    }

    /// The entry files under `directory` (size, modification time) and the temporaries' paths.
    private static func scan(_ directory: String) -> (entries: [CacheKey: (size: Int, modified: Int64)], temporaries: [String]) {
        var entries: [CacheKey: (size: Int, modified: Int64)] = [:]
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

    private func disable(_ reason: String) {
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
        let forgotten = state.withLock { state -> (memory: [CacheKey: CacheEntry], readAhead: [CacheKey: ReadAhead])? in
            state.disabledReason = nil
            state.changeCounter += 1
            return opened ? Self.forgetVersions(&state) : nil
        }
        withExtendedLifetime(forgotten) {}  // the copies' memory and held descriptors let go outside the lock
        onEnable?()
    }

    /// The directory was unusable for a while: what it holds now may be other than what this process last saw (wiped,
    /// restored, rewritten by hand; and an upstream's newer version or `no-store` met meanwhile was not written —
    /// review15 R1). Every copy in memory and read ahead goes, and every record gets a new generation and an unknown
    /// inode: answers built on them (the merged-answer memo) find no stamp current, and the next lookup of each reads
    /// its file (a file gone is a miss). Returns what was dropped, for the caller to release outside the lock.
    private static func forgetVersions(_ state: inout State) -> (memory: [CacheKey: CacheEntry], readAhead: [CacheKey: ReadAhead]) {
        let dropped = (state.memory.merging(state.held.mapValues(\.entry)) { copy, _ in copy }, state.readAhead)
        state.held = [:]
        state.heldRecency = RecencyList()
        state.memory = [:]
        state.memoryBytes = 0
        state.memoryRecency = RecencyList()
        state.readAhead = [:]
        state.readAheadOrder = []
        state.readAheadBytes = 0
        for key in Array(state.records.keys) {
            state.changeCounter += 1
            state.records[key]?.generation = state.changeCounter
            state.records[key]?.memoryUse = nil
            state.records[key]?.inode = nil
        }
        return dropped
    }

    /// The directory's ledger, taken now (the first time the directory works): kept for the store's life, as one taken
    /// at the start is (its instance file stays locked, and is removed when the store goes).
    private func takeLedger() throws(CacheFileSystem.Failure) {
        let ledger = try CacheDirectoryLedger(directory: directory)
        ledgerSlot.withLock { $0 = ledger }
    }

    /// Writes and removes an empty file of this process's in the directory: it can hold entries.
    private func proveWritable(_ ledger: CacheDirectoryLedger) throws(CacheFileSystem.Failure) {
        let probe = "\(directory)/.probe-\(ledger.instance)"
        try CacheFileSystem.writeAtomically([], to: probe, temporary: probe + ".tmp")
        CacheFileSystem.remove(probe)
    }

    /// Proves the directory writable, removes temporaries no live process owns, rebuilds the index and the shared
    /// total (under the directory's lock), and evicts if the directory is over the bound.
    private func open() throws(CacheFileSystem.Failure) {
        guard let ledger else { return }
        try proveWritable(ledger)
        // Both locks: no other process has an eviction's victims aside, so the rescan below is the true total.
        ledger.withEvictionLock(wait: true) { ledger.withLock { total in
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
                    state.records[file.key] = Record(
                        size: file.value.size, lastUse: UInt64(index + 1), generation: UInt64(index + 1),
                        use: state.recency.insertNewest(file.key))
                    state.totalBytes += file.value.size
                }
                state.useCounter = UInt64(files.count)
                state.changeCounter = max(state.changeCounter, UInt64(files.count))
                state.opened = true
                state.entryDirectory = EntryDirectory(path: directory)
            }
            total = files.values.reduce(0) { $0 + $1.size }
        } }
        // Over the bound (a smaller one than the last run's, or one the processes disagree on): evicted in the background.
        if totalBytes > evictionStart { evictInBackground() }
    }

    /// Brings a store found over its bound when it opened down to it on `evictions`, telling `onStartEviction` before
    /// (here, on the opening thread) and after. Not before the proxy listens (attack15 M2: 97,772 victims, 5-7 minutes
    /// without `/healthz`): it serves what it holds meanwhile, and a write that finds no room is not stored rather than
    /// wait (the bound holds for new writes; lookups of the victims are misses once their files are gone).
    private func evictInBackground() {
        let (entries, bytes) = state.withLock { state in
            state.evictingAtStart = true
            return (state.records.count, state.totalBytes)
        }
        onStartEviction?(.began(entries: entries, bytes: bytes, maxBytes: maxBytes))
        evictions.async { [self] in
            let started = ContinuousClock.now
            evict(making: 0, sparing: nil, wait: true)
            let (left, leftBytes) = state.withLock { state in
                state.evictingAtStart = false
                return (state.records.count, state.totalBytes)
            }
            onStartEviction?(.ended(evictedEntries: max(0, entries - left), evictedBytes: max(0, bytes - leftBytes), duration: .now - started))
        }
    }
}

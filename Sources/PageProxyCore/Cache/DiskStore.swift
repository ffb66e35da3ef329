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
///
/// Here: the state, the settings and what can be asked of them. The rest, one responsibility a file: `+Lookup`,
/// `+EntryFile` (reading a file), `+ReadAhead`, `+Copies` (in memory, or with held files), `+Versions` (which
/// version a record names), `+Write` (and removal), `+Eviction`, `+Availability` (disabled, enabled, opened).
package final class DiskStore: Sendable {
    struct Record {
        var size: Int
        var lastUse: UInt64
        /// Hits since this process last refreshed the file's time (nil: never refreshed).
        var hitsSinceTouch: UInt64?
        /// Which write of this process the file holds (see `PageStamp`).
        var generation: UInt64
        /// Where the entry stands in `State.recency`; nil while an eviction has taken it out to look at it.
        var use: RecencyList<CacheKey>.Handle?
        /// Where its copy in memory stands in `State.copies`' order, while it has one.
        var memoryUse: RecencyList<CacheKey>.Handle?
        /// The inode of the file this process last wrote or read for the entry (nil: not yet known): another one is
        /// a version another process renamed into place (`noteFileInode`).
        var inode: UInt64? = nil

        /// `hitsSinceTouch` after one more hit; the hit refreshes the file's time when it reaches `interval`.
        func hitsAfterNextUse(interval: UInt64) -> UInt64 { hitsSinceTouch.map { $0 + 1 } ?? interval }
    }

    /// An entry kept with its held file and no body in memory (`State.held`), and the version it is.
    struct HeldEntry {
        var entry: CacheEntry
        var generation: UInt64
        var use: RecencyList<CacheKey>.Handle
    }

    /// An entry read ahead of the lookups that will want it (`readAhead`), verified and not yet looked up.
    struct ReadAhead {
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

    struct State {
        var records: [CacheKey: Record] = [:]
        /// The records that are merged answers' own entries, as far as this process knows (it wrote or read them).
        var answerKeys: Set<CacheKey> = []
        /// An eviction of a store found over its bound when it opened is under way (`evictInBackground`).
        var evictingAtStart = false
        /// Fan-out folders (`CacheKey.directoryName`, so at most 256) where a write failed as `unwritableFolder` since
        /// the last one that succeeded there: a file found under one without a record is not adopted, since the
        /// failed write's removal of its key's old version may have failed too (review25 M3).
        var unadoptedFolders: Set<String> = []
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
        /// served again without re-reading the file (handles of their order in the records).
        var copies = EntryCopies()
        /// An eviction is queued and has not started: writes meanwhile need not queue another.
        var evictionQueued = false
        /// Entries whose bodies were verified and left in their held files (`CacheEntry.bodyInFile`), kept with those
        /// files for the next lookup that leaves bodies for the same scan (issue 13, fourteenth pass: the second merged
        /// read-back after a restart neither reads the files again nor faults in copies); at most `heldEntryLimit`, the
        /// least recently used let go first, and dropped with the copy in memory (`dropMemory`).
        var held: [CacheKey: HeldEntry] = [:]
        var heldRecency = RecencyList<CacheKey>()
        /// Entries read ahead (`readAhead`), until a lookup takes them; bounded, the oldest dropped first.
        var readAhead = ReadAheadHold(countLimit: DiskStore.readAheadLimit)
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
    let state = Mutex(State())

    /// `state.withLock`, with the entries `body` let go (`State.released`) released after the lock.
    func withStateReleasing<T>(_ body: (inout State) -> T) -> T {
        let (result, released) = state.withLock { state -> (T, [CacheEntry]) in
            let result = body(&state)
            defer { state.released = [] }
            return (result, state.released)
        }
        _ = released
        return result
    }
    /// Warm-ups run to their end by `warmUpInBackground` (tests wait for it).
    let warmUpsDone = Atomic<Int>(0)
    /// Warm-ups `warmUpInBackground` has started (counted before it returns: tests read it at once).
    let warmUpsStarted = Atomic<Int>(0)
    /// The length of the last entry head read (`readEntryFile`'s guess for the next); 0 before the first.
    let lastHeadLength = Atomic<Int>(0)
    let onDisable: @Sendable (String) -> Void
    /// A hit refreshes the file's time at most once per this many hits of that entry (cheap LRU persistence: a
    /// system call per page per request was 3 % of a cached walk, issue 13).
    let touchInterval: UInt64 = 64
    /// The most body bytes kept in memory; past it the least recently used copies are dropped (the files stay).
    let memoryLimit: Int
    /// How many records an eviction looks at, or forgets, in one hold of the store's lock (the epoll loop takes it).
    package let evictionBatch: Int
    /// The most entries, and body bytes, held read ahead and not yet looked up: a walk that stops early (its client
    /// left, `_max_items`) leaves at most this much behind.
    static let readAheadLimit = 64
    var readAheadByteLimit: Int { min(memoryLimit, 8 << 20) }
    /// The total bytes and the live processes that share the directory; nil while the directory has been unusable
    /// since the start (taken when it works, `tryToEnable`).
    var ledger: CacheDirectoryLedger? { ledgerSlot.withLock { $0 } }
    let ledgerSlot: Mutex<CacheDirectoryLedger?>
    /// Told the victims of an eviction once they are chosen, before their files are removed (tests hold it there).
    let onEvicting: (@Sendable ([CacheKey]) -> Void)?
    /// Told before and after the eviction of a store found over its bound when it opened.
    let onStartEviction: (@Sendable (CacheStartEviction) -> Void)?
    /// Told as a write begins, on the thread that runs it (tests hold it there: a disk that stalls).
    let onWriting: (@Sendable (CacheKey) -> Void)?
    /// Told once a write's record names the version it wrote, before the write returns (tests look up there).
    let onWritten: (@Sendable (CacheKey) -> Void)?
    /// Told when a write finds the volume full, once until a write succeeds again (the proxy logs it).
    let onVolumeFull: (@Sendable (_ reason: String, _ outOfInodes: Bool) -> Void)?
    /// Told of each fan-out folder that is a link, the first time a write would go through it (the proxy logs it).
    let linkedFolderNotice: LinkedFolderNotice?
    /// Told (with the lock file's path) when a write gave up waiting for a lock another process holds, once until a
    /// lock is taken again (`CacheDirectoryLedger.withLockUnlessBusy`; the proxy logs it).
    let onLockBusy: (@Sendable (_ lock: String) -> Void)?
    /// Told of each fan-out folder that refused a write while the directory took one, once (the proxy logs it).
    let unwritableFolderNotice: LinkedFolderNotice?
    /// Told when a disabled store finds its directory usable again and serves again (the proxy logs it).
    let onEnable: (@Sendable () -> Void)?
    /// How often a disabled store tries its directory again (`tryToEnable`).
    let retryInterval: Duration
    /// How many entry files may stay open for sending from (`HeldEntryFile`), shared with every store by default.
    let heldFiles: HeldEntryFileBudget
    /// An `errno` a write fails with before it touches the disk, or nil (tests: a full volume without mounting one).
    let failWriting: (@Sendable (CacheKey) -> Int32?)?
    /// Reads the volume under a directory when a write found no space (tests: a small or inode-less volume without
    /// mounting one).
    let readVolume: @Sendable (String) -> CacheVolume?
    /// Where the evictions that writes start run, one at a time: not on the writer's thread, so neither the writer
    /// nor the writes queued behind it on its `DiskWork` lane wait for a directory scan and the victims' unlinks.
    let evictions = DispatchQueue(label: "PageProxy.DiskStore.evictions")

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
        onStartEviction: (@Sendable (CacheStartEviction) -> Void)? = nil, onLinkedFolder: (@Sendable (String) -> Void)? = nil,
        onLockBusy: (@Sendable (_ lock: String) -> Void)? = nil, onUnwritableFolder: (@Sendable (String) -> Void)? = nil
    ) {
        unwritableFolderNotice = onUnwritableFolder.map(LinkedFolderNotice.init)
        linkedFolderNotice = onLinkedFolder.map(LinkedFolderNotice.init)
        self.onLockBusy = onLockBusy
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
            ledger = try CacheDirectoryLedger(directory: self.directory, onBusy: onLockBusy)
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
    package func holdsInMemory(_ key: CacheKey) -> Bool { state.withLock { $0.copies[key] != nil } }

    /// The body bytes of the entries kept in memory (never more than the memory bound).
    package var memoryByteCount: Int { state.withLock { $0.copies.bytes } }

    /// Whether the entry for `key` is kept with its held file, its body not in memory (`State.held`; tests).
    package func holdsInFile(_ key: CacheKey) -> Bool { state.withLock { $0.held[key] != nil } }

    /// The most entries kept with their held files: half the budget, the rest for answers being sent.
    var heldEntryLimit: Int { heldFiles.capacity / 2 }

    /// Whether the entry for `key` is held read ahead, not yet taken by a lookup (tests).
    package func holdsReadAhead(_ key: CacheKey) -> Bool { state.withLock { $0.readAhead.holds(key) } }

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

    /// The entry file's path: `<directory>/<first two hex digits>/<64 hex digits>.entry`.
    package func path(for key: CacheKey) -> String {
        "\(directory)/\(key.relativePath)"
    }
}

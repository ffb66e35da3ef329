import Dispatch
import Foundation
import Glibc
import Synchronization

/// Memoized merged answers kept in the page cache's directory as entries of their own (`AnswerEntry`), so that they
/// survive a restart (issue 13, sixteenth pass: the first read-back after a restart was a walk through 501 entry files).
///
/// An answer's entry is a cache entry like a page's (`CacheEntryFormat`, written by `DiskStore.write`): named by its
/// key, put in place by a rename, counted in `cache.maxBytes` and evicted with the pages; no symbolic link is followed
/// to it. It is written `fsync`ed before its rename, so that a file under its name is whole; reading it back checks
/// its heads (both checksummed), that the file's size is exactly what they say, and hashes its body through a small
/// reused buffer against the cache entry's checksum before anything is sent (DESIGN.md: a corrupted entry is detected
/// and is a miss; ~1.6 ms for 10.6 MB at ~6.5 GB/s, paid once: the memo then sends it from the file without reading it
/// again). A file changed in place after that check, while it is sent, is caught as a page entry's is (`HeldEntryFile`).
///
/// It is used only while every page of its manifest is still the file it was built from, and fresh (`AnswerEntry`);
/// any other is removed when found (stale, its pages changed, torn, garbage, another format's), and the walk answers.
package final class AnswerEntries: Sendable {
    package let store: DiskStore
    /// Where the files of the answers found are held open for sending from.
    private let budget: HeldEntryFileBudget
    /// Writes queued or running; past `maxPendingWrites`, an answer is not written (it is still memoized).
    private let pendingWrites = Mutex(0)
    static let maxPendingWrites = 4
    /// Where answers are written, one at a time, off the cooperative pool (they block on the disk and `fsync`).
    private static let writes = DispatchQueue(label: "PageProxy.AnswerEntries.writes")
    /// Where answers are looked for, off the cooperative pool (they read a file and `lstat` each page's).
    private static let reads = DispatchQueue(label: "PageProxy.AnswerEntries.reads", attributes: .concurrent)

    /// Told before each read of an entry (tests: how many reads, and holding one).
    private let beforeRead: (@Sendable () -> Void)?

    package init(store: DiskStore, budget: HeldEntryFileBudget = .shared, beforeRead: (@Sendable () -> Void)? = nil) {
        self.store = store
        self.budget = budget
        self.beforeRead = beforeRead
    }

    /// An answer found in the cache directory, with its file held open for sending from.
    package struct Found: Sendable {
        package let answer: AnswerEntry
        /// The answer's body is the file's body from 0 to `length`.
        package let file: HeldEntryFile
        package let length: Int
        /// The versions of its pages in the store's index, taken before their files were compared with the manifest.
        package let stamps: [PageStamp]
        /// When it was made (kept as its cache entry's `storedAt`, to the millisecond).
        package let madeAt: Date
    }

    /// Queues a write of `answer` (its manifest made from `stamps`, made at `madeAt`) with `body` under `key`; nothing
    /// when writes are queued already past `maxPendingWrites`.
    /// - Parameter holding: kept until the write has run (or is not queued): what the body and the write's copies of it
    ///   are charged to, and the caller's hold on `key` (`NDJSONAnswerKeeper`).
    package func keep(
        _ answer: AnswerEntry, body: [UInt8], stamps: [PageStamp], madeAt: Date, for key: CacheKey, holding: (any Sendable)? = nil
    ) {
        let queued = pendingWrites.withLock { count -> Bool in
            guard count < Self.maxPendingWrites else { return false }
            count += 1
            return true
        }
        guard queued else { return }
        Self.writes.async {
            defer { self.pendingWrites.withLock { $0 -= 1 } }
            _ = self.write(answer, body: body, stamps: stamps, madeAt: madeAt, for: key)
            withExtendedLifetime(holding) {}
        }
    }

    /// Returns once the writes queued so far have run (tests). Suspends, never blocks.
    package static func waitForWrites() async {
        await withCheckedContinuation { continuation in writes.async { continuation.resume() } }
    }

    /// Writes `answer` with `body` under `key`, its manifest the page files of `stamps` as they are now, and where its
    /// items are split unless it says (`AnswerEntry.itemSeparators`). Nothing is
    /// written unless every one of those files is still the version stamped: the index names that version by the
    /// inode this process wrote or read it as, after the files were looked at (a page renamed over meanwhile, by this
    /// process or another, has another inode, or another generation). Blocks on the disk.
    /// - Parameter madeAt: when the answer was made, on the memo's clock: its entry's `storedAt` (attack17 M2).
    /// - Returns: whether it was written.
    @discardableResult
    package func write(_ answer: AnswerEntry, body: [UInt8], stamps: [PageStamp], madeAt: Date, for key: CacheKey) -> Bool {
        guard store.isEnabled, !stamps.isEmpty else { return false }
        var manifest: [AnswerEntry.Page] = []
        manifest.reserveCapacity(stamps.count)
        for stamp in stamps {
            guard let file = Self.fileStamp(store.path(for: stamp.key)) else { return false }
            manifest.append(AnswerEntry.Page(key: stamp.key, file: file))
        }
        guard let versions = store.versions(of: stamps.map(\.key)) else { return false }
        for (index, version) in versions.enumerated() where version.stamp != stamps[index] || version.inode != manifest[index].file.inode {
            return false
        }
        var entry = answer
        entry.manifest = manifest
        // Where its items are split, found here once, off the requests' path (~1 ms a MB): NDJSON of the same items
        // is then sent from the same body (`MergedAnswerLines`).
        if entry.itemSeparators == nil { entry.itemSeparators = MergedAnswerLines.separators(ofMerged: body, items: answer.items) }
        var payload = AnswerEntryFormat.encodeHead(entry, bodyLength: body.count)
        payload.append(contentsOf: body)
        let stored = CacheEntry(
            status: .ok, headers: HTTPHeaders(), body: payload, storedAt: madeAt, freshUntil: answer.freshUntil, mustRevalidate: true)
        guard store.write(stored, for: key, synced: true, sparing: stamps.map(\.key)) != nil else { return false }
        store.noteAnswer(key)
        return true
    }

    /// `read(key, at: now, onChanged:)`, off the cooperative pool.
    package func find(_ key: CacheKey, at now: Date, onChanged: (@Sendable () -> Void)? = nil) async -> Found? {
        await withCheckedContinuation { continuation in
            Self.reads.async {
                self.beforeRead?()
                continuation.resume(returning: self.read(key, at: now, onChanged: onChanged))
            }
        }
    }

    /// The answer kept under `key`, when it is whole, fresh at `now` (and not made after it: `WallClockStep`), and every
    /// page of its manifest is still the file
    /// it was built from; any other is removed. Nil too, and the file left, when the held-files budget is full.
    /// Blocks on the disk.
    /// - Parameter onChanged: told (after the entry is queued for removal) when a send finds the answer's file written
    ///   in place since it was opened.
    package func read(_ key: CacheKey, at now: Date, onChanged: (@Sendable () -> Void)? = nil) -> Found? {
        // Before any read: with no place left, the heads, the manifest's `fstatat`s and the payload's checksum (every
        // byte of the body) were read at every memo miss only to be dropped (review23 F7). Another thread may take the
        // last place after this; `HeldEntryFile` still checks.
        guard budget.hasRoom else { return nil }
        let root = open(store.directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if root >= 0 { close(root) } }
        guard root >= 0 else { return nil }
        // Opened as a page's entry is: no symbolic link followed (not for the fan-out folder, not for the file), never
        // waiting in `open` (attack17 H1: a FIFO in its place held the thread, and ~20 of them the process), a regular
        // file only. Anything else there is a miss, as for a page: the walk's answer is written over it.
        guard let (descriptor, info) = try? CacheFileSystem.openForReading(key.relativePath, in: root) else { return nil }
        var held = false
        defer { if !held { close(descriptor) } }
        let opened = HeldEntryFile.Stamp(info)
        guard let first = try? Self.readExactly(descriptor, min(opened.size, 64 << 10), at: 0),
            let entryHead = first.withUnsafeBytes(CacheEntryFormat.headLength(of:)), entryHead <= opened.size
        else {
            store.remove(key)
            return nil
        }
        // Two things at once (twentieth pass: ~a third of the work before the head, on a second core that the client
        // leaves idle until the head comes): the hash of every byte after the entry's head (the answer's head and its
        // body) as written, the costliest; and the heads read and checked, then every page of the manifest. Nothing is
        // sent, nor kept, unless both pass.
        let (store, size) = (self.store, opened.size)
        let payloadHash = Mutex<UInt64?>(nil)
        let checked = Mutex<(AnswerEntry, madeAt: Date, bodyOffset: Int, length: Int, payloadChecksum: UInt64, versions: [(stamp: PageStamp, inode: UInt64?)])?>(nil)
        DispatchQueue.concurrentPerform(iterations: 2) { part in
            guard part == 1 else {
                let hash = Self.payloadHash(descriptor, from: entryHead, to: size)
                payloadHash.withLock { $0 = hash }
                return
            }
            guard let (answer, madeAt, bodyOffset, length, payload) = try? Self.readHeads(descriptor, size: size, key: key, first: first),
                payload.offset == entryHead,
                // The versions first, then the files: a page written after this is a newer generation than the stamp (the
                // memo drops the answer then), and one written before is another file than the manifest's. Each page's
                // file is looked at under the cache directory held open (not its whole path again: ~0.3 µs a page).
                now < answer.freshUntil, !WallClockStep.isAhead(madeAt, of: now), let versions = store.versions(of: answer.manifest.map(\.key)),
                answer.manifest.allSatisfy({ page in Self.fileStamp(page.key.relativePath, in: root).map(page.file.isSameVersion(as:)) ?? false })
            else { return }
            checked.withLock { $0 = (answer, madeAt, bodyOffset, length, payload.checksum, versions) }
        }
        guard let (answer, madeAt, bodyOffset, length, payloadChecksum, versions) = checked.withLock({ $0 }),
            payloadHash.withLock({ $0 }) == payloadChecksum
        else {
            store.remove(key)
            return nil
        }
        // The index learns each page's file now (review23 F2): a record the start-up scan made knows no inode, and a
        // later read of another process's newer file there was taken for this one (no new generation), while the memo
        // kept sending the answer built on the old. Known now, such a file is adopted as another version.
        for (page, version) in zip(answer.manifest, versions) where version.inode == nil {
            _ = store.noteFileInode(page.key, page.file.inode, readUnder: version.stamp.generation, atPath: (page.file.inode, page.file.size))
        }
        let changed: @Sendable (UInt64) -> Void = { _ in
            Self.writes.async { store.remove(key) }
            onChanged?()
        }
        guard let file = HeldEntryFile(descriptor: descriptor, bodyOffset: bodyOffset, budget: budget, stamp: opened, onChanged: changed)
        else { return nil }
        held = true
        store.noteAnswer(key)
        return Found(answer: answer, file: file, length: length, stamps: versions.map(\.stamp), madeAt: madeAt)
    }

    /// The identity of the regular file at `path` (`lstat`: a link is no entry), or nil.
    static func fileStamp(_ path: String) -> HeldEntryFile.Stamp? { fileStamp(path, in: AT_FDCWD) }

    /// The identity of the regular file at `path` under the directory `root` (no link followed at its end), or nil.
    static func fileStamp(_ path: String, in root: Int32) -> HeldEntryFile.Stamp? {
        var info = stat()
        guard fstatat(root, path, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return HeldEntryFile.Stamp(info)
    }

    /// The answer's heads read from the file of `size` bytes: the cache entry's (its key and checksum checked) and the
    /// answer's (its checksum checked), which must add up to exactly `size` with the body. Returns when it was made,
    /// where the body starts in the file, and its length.
    /// - Parameter first: the file's first bytes, already read (up to 64 KiB).
    private static func readHeads(
        _ descriptor: Int32, size: Int, key: CacheKey, first: [UInt8]
    ) throws -> (AnswerEntry, madeAt: Date, bodyOffset: Int, length: Int, payload: (offset: Int, checksum: UInt64)) {
        var bytes = first
        guard let entryHead = bytes.withUnsafeBytes(CacheEntryFormat.headLength(of:)), entryHead <= size else {
            throw CacheEntryFormat.Invalid.tooShort
        }
        let need = entryHead + AnswerEntryFormat.prefixLength
        if bytes.count < need { bytes += try readExactly(descriptor, need - bytes.count, at: bytes.count) }
        let entry = try CacheEntryFormat.decodeHead(Array(bytes[..<entryHead]), bodyLength: size - entryHead, key: key)
        guard let (answerHead, length) = try AnswerEntryFormat.lengths(of: bytes[entryHead...]), entryHead + answerHead <= size,
            size - entryHead - answerHead == length
        else { throw AnswerEntryFormat.Invalid.lengthMismatch }
        let headEnd = entryHead + answerHead
        if bytes.count < headEnd { bytes += try readExactly(descriptor, headEnd - bytes.count, at: bytes.count) }
        let answer = try AnswerEntryFormat.decodeHead(bytes[entryHead..<headEnd])
        return (answer, entry.storedAt, headEnd, length, (entryHead, entry.bodyChecksum))
    }

    /// XXH64 of the file's bytes from `start` to `end`, read through a 256 KiB buffer; nil when they cannot be read.
    private static func payloadHash(_ descriptor: Int32, from start: Int, to end: Int) -> UInt64? {
        var hasher = XXHash64.Streaming()
        let chunk = 256 << 10
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var offset = start
        while offset < end {
            guard let base = buffer.baseAddress else { return nil }
            let read = pread(descriptor, base, min(chunk, end - offset), off_t(offset))
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { return nil }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<read]))
            offset += read
        }
        return hasher.finalize()
    }

    /// `count` bytes of the file from `offset`; throws when it has fewer.
    private static func readExactly(_ descriptor: Int32, _ count: Int, at offset: Int) throws -> [UInt8] {
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var done = 0
            while done < count, let base = buffer.baseAddress {
                let read = pread(descriptor, base + done, count - done, off_t(offset + done))
                if read < 0, errno == EINTR { continue }
                if read <= 0 { break }
                done += read
            }
            complete = done == count
            initialized = done
        }
        guard complete else { throw AnswerEntryFormat.Invalid.lengthMismatch }
        return bytes
    }
}

import Dispatch
import Synchronization

/// Entries read into memory at start, before any request asks for them (issue 13, twenty-fifth pass: the first walk
/// after a restart read 501 files on the request's path, ~14 ms of first-time work its second walk does not pay).
extension DiskStore {
    /// What a warm-up read and kept.
    package struct WarmUp: Sendable, Equatable {
        /// Entries kept in memory.
        package var entries = 0
        /// Their body bytes.
        package var bytes = 0
        /// Entries not kept: torn or corrupt (left for the lookup to find and remove), changed since they were chosen,
        /// or no longer fitting.
        package var skipped = 0
        /// Merged answers' own entries read and not kept (`AnswerEntryFormat.isAnswer`).
        package var answers = 0
    }

    /// Reads the most recently used entries into memory, newest first, as the copies a lookup keeps (`remember`), so
    /// that the first walk after a restart finds them as the second would. Blocks on the disk: run it off the
    /// cooperative pool (`warmUpInBackground`).
    ///
    /// Nothing here is a use, nor touches a file: the LRU order of the files and of the copies is as it was (each copy
    /// is kept as the oldest, newest first, so the newest entry read stays the newest copy). A file whose time is
    /// recent (`CacheFileSystem.touchResolution`) is not refreshed by its copy's first hit, as a lookup reading it would
    /// not refresh it either; any other is, as before. Every entry is verified
    /// as a lookup verifies it; a torn or corrupt one is skipped and left for the lookup to find and remove. An entry
    /// is kept only while its record still names the version chosen and the file read is the one the record knows (its
    /// inode): one written, revalidated, removed or evicted meanwhile, or renamed over by another process, is not kept
    /// (a later change drops the copy as it drops any). Copies already in memory are never dropped to make room: the
    /// warm-up stops adding once the next entry would pass `min(maxBytes, memoryLimit)` of copies. Files past
    /// `warmUpEntryLimit` are not read.
    /// - Parameters:
    ///   - maxBytes: the most body bytes of copies the warm-up fills to (the store's `memoryLimit` bounds it too).
    ///   - maxEntries: the most entries it reads.
    ///   - isCancelled: asked before each entry: true stops the warm-up there.
    ///   - onRead: told after each entry is read and verified, before it is kept (tests change the entry there).
    @discardableResult
    package func warmUp(
        maxBytes: Int, maxEntries: Int = 8_192, until isCancelled: () -> Bool = { false }, onRead: ((CacheKey) -> Void)? = nil
    ) -> WarmUp {
        let limit = min(maxBytes, memoryLimit)
        var done = WarmUp()
        guard limit > 0, maxEntries > 0 else { return done }
        // One hold, O(maxEntries): the newest keys not in memory whose files fit the bound together with the copies.
        let keys: [CacheKey] = state.withLock { state in
            guard state.disabledReason == nil, !state.evictingAtStart else { return [] }
            var fitting: [CacheKey] = []
            var bytes = state.copies.bytes
            for key in state.recency.newest(maxEntries) where state.copies[key] == nil && !state.answerKeys.contains(key) {
                guard let size = state.records[key]?.size, size <= Self.warmUpEntryLimit, bytes + size <= limit else { continue }
                bytes += size
                fitting.append(key)
            }
            return fitting
        }
        for key in keys {
            if isCancelled() { break }
            let wanted: (generation: UInt64, entries: HeldDirectory)? = state.withLock { state in
                guard state.disabledReason == nil, let record = state.records[key], state.copies[key] == nil,
                    !state.readAhead.holds(key), state.copies.bytes + record.size <= limit,
                    let entries = Self.entryDirectory(&state)
                else { return nil }
                return (record.generation, entries)
            }
            guard let wanted else {
                done.skipped += 1
                continue
            }
            guard let file = try? readEntryFile(key, in: wanted.entries, touch: false, wait: .mayWaitForDisk) ?? nil,
                let entry = try? file.entry(for: key) ?? nil
            else {
                done.skipped += 1
                continue
            }
            // A merged answer's own entry is never looked up as a page (the memo reads and sends it from its file):
            // as a copy it would take memory for nothing (review25 LOW). After a restart `answerKeys` does not know it
            // yet; its first bytes do.
            if AnswerEntryFormat.isAnswer(entry) {
                done.answers += 1
                continue
            }
            // A file used less than `touchResolution` ago needs no refresh of its time on its first hit, as a lookup
            // that reads it leaves it (`touchIfDue`); a copy's first hit would otherwise refresh it by its path, on the
            // request's thread (issue 13, twenty-fifth pass: ~1.8 ms of 501 first hits).
            let recent = CacheFileSystem.fileInfo(path(for: key)).map {
                $0.inode == file.inode && CacheFileSystem.wasTouchedRecently(usedAt: $0.used / 1_000_000_000)
            } ?? false
            onRead?(key)
            let kept = withStateReleasing { state -> Bool in
                guard let record = state.records[key], record.generation == wanted.generation,
                    record.inode.map({ $0 == file.inode }) ?? true, state.copies[key] == nil,
                    state.copies.bytes + entry.body.count <= limit
                else { return false }
                state.records[key]?.inode = file.inode
                if recent, record.hitsSinceTouch == nil { state.records[key]?.hitsSinceTouch = 0 }
                keepCopy(entry.withoutFile, for: key, asOldest: true, &state)
                return state.records[key]?.memoryUse != nil
            }
            if kept {
                done.entries += 1
                done.bytes += entry.body.count
            } else {
                done.skipped += 1
            }
        }
        return done
    }

    /// `warmUp` on a thread of its own (never the cooperative pool), at utility priority; `onDone` is told what it
    /// kept and how long it took, on that thread. Returns at once.
    package func warmUpInBackground(
        maxBytes: Int, maxEntries: Int = 8_192, onDone: (@Sendable (WarmUp, Duration) -> Void)? = nil
    ) {
        guard maxBytes > 0, isEnabled else { return }
        warmUpsStarted.add(1, ordering: .relaxed)
        Self.warmUpQueue.async { [self] in
            let started = ContinuousClock.now
            let done = warmUp(maxBytes: maxBytes, maxEntries: maxEntries)
            onDone?(done, ContinuousClock.now - started)
            warmUpsDone.add(1, ordering: .releasing)
        }
    }

    /// How many warm-ups `warmUpInBackground` has run to their end.
    package var warmUpCount: Int { warmUpsDone.load(ordering: .acquiring) }

    /// How many warm-ups `warmUpInBackground` has started, finished or not.
    package var warmUpStartedCount: Int { warmUpsStarted.load(ordering: .relaxed) }

    /// The largest entry file a warm-up reads: a page bigger than this, or a merged answer's own entry (read and sent
    /// from its file by the memo, `AnswerEntries`), waits for its lookup.
    static let warmUpEntryLimit = 1 << 20

    private static let warmUpQueue = DispatchQueue(label: "PageProxy.DiskStore.warmUp", qos: .utility)
}

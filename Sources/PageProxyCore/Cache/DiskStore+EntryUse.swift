import Dispatch
import Synchronization

/// Uses of an entry that read nothing: an answer entry's memo hits (`MergedAnswerMemo`); which entries are answers'.
extension DiskStore {
    /// Marks `key`'s entry as a merged answer's own (`AnswerEntries` wrote or read it): counted apart from the pages
    /// (`answerEntryCount`; review23 F7: `pageproxy_cache_entries` counted answers as pages).
    package func noteAnswer(_ key: CacheKey) {
        state.withLock { state in
            if state.records[key] != nil { state.answerKeys.insert(key) }
        }
    }

    /// How many entries are merged answers' own, of those this process wrote or read since it started (one kept by
    /// another process, or by an earlier run and not read yet, is counted as a page).
    package var answerEntryCount: Int { state.withLock { $0.answerKeys.count } }

    /// Records a use of `key`'s entry without reading it (h13-answer16 leftover: answer entries sent from the memo were
    /// never used here, so they were evicted in the order they were written, the hottest first among equals): the
    /// eviction order sees it as a lookup's, and every `touchInterval`th such use refreshes the file's access time (the
    /// LRU order after a restart) on `evictions`, off the caller's thread, which may be the socket loop's.
    package func noteUse(_ key: CacheKey) {
        let touches = state.withLock { state -> Bool in
            guard state.disabledReason == nil, let index = state.records.index(forKey: key) else { return false }
            var record = state.records.values[index]
            // The order alone: `useCount` (and `lastUse`, which read-ahead compares) count lookups of pages.
            Self.markUsed(key, &record, &state)
            let hits = record.hitsAfterNextUse(interval: touchInterval)
            let touch = hits >= touchInterval
            record.hitsSinceTouch = touch ? 0 : hits
            state.records.values[index] = record
            return touch
        }
        guard touches else { return }
        let path = path(for: key)
        evictions.async { CacheFileSystem.touch(path) }
    }
}

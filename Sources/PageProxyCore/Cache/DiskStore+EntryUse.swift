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

    /// Records uses of `keys`' entries without reading them: a memo hit's, of the pages its answer was built from and of
    /// its answer entry (h13-answer16 leftover: answer entries sent from the memo were evicted in the order they were
    /// written; retest17 W2: the pages of the most asked answers were evicted first). The eviction order sees each as a
    /// lookup's, and every `touchInterval`th use of an entry refreshes its file's access time (the LRU order after a
    /// restart) on `evictions`, off the caller's thread, which may be the socket loop's. One hold of the lock for all.
    package func noteUses(_ keys: [CacheKey]) {
        let touched = state.withLock { state -> [CacheKey] in
            guard state.disabledReason == nil else { return [] }
            var touched: [CacheKey] = []
            for key in keys {
                guard let index = state.records.index(forKey: key) else { continue }
                var record = state.records.values[index]
                // The order alone: `useCount` (and `lastUse`, which read-ahead compares) count lookups of pages.
                Self.markUsed(key, &record, &state)
                let hits = record.hitsAfterNextUse(interval: touchInterval)
                let touch = hits >= touchInterval
                record.hitsSinceTouch = touch ? 0 : hits
                state.records.values[index] = record
                if touch { touched.append(key) }
            }
            return touched
        }
        guard !touched.isEmpty else { return }
        let paths = touched.map(path(for:))
        evictions.async { paths.forEach(CacheFileSystem.touch) }
    }
}

import CLinux

/// The malloc heap cache entries are read into, kept to one arena and warmed when serve starts (CLinux.c,
/// `pageproxy_warm_malloc_heap`; issue 13, seventeenth pass): the first walk after a restart keeps ~10 MB of entries
/// in memory the process never touched, one page fault a 4 KiB page (~40 % of its reads' CPU). The cost: the memory
/// warmed is resident from the start, at most `pageproxy_malloc_warm_limit()` (15 MiB).
enum WarmHeap {
    /// Keeps every thread to the arena `warm` warms (unless huge pages are taken for thread heaps instead): first
    /// thing in main, after the huge-page policy and before any thread starts.
    static func keepOneArena() {
        _ = pageproxy_keep_one_malloc_arena()
    }

    /// The bytes to warm for `cache`: what its copies in memory may take (`DiskStore`'s bound, `maxBytes` up to
    /// 64 MiB), at most `limit`; none when the cache is off.
    static func bytes(for cache: CacheConfig, limit: Int) -> Int {
        cache.maxBytes > 0 ? max(0, min(cache.maxBytes, 64 << 20, limit)) : 0
    }

    /// Warms the heap for `cache` (see `bytes`); the bytes warmed.
    @discardableResult
    static func warm(for cache: CacheConfig) -> Int {
        Int(pageproxy_warm_malloc_heap(bytes(for: cache, limit: Int(pageproxy_malloc_warm_limit()))))
    }
}

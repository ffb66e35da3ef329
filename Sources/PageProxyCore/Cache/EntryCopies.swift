/// The copies of entries a `DiskStore` keeps in memory (served without reading their files), bounded in body bytes:
/// the least recently used make room. Each copy's place in the order is a handle the store keeps in the entry's record
/// (`DiskStore.Record.memoryUse`), so that a use moves it without another lookup by key (issue 13, seventh pass).
struct EntryCopies {
    typealias Handle = RecencyList<CacheKey>.Handle

    private var copies: [CacheKey: CacheEntry] = [:]
    /// The body bytes of the copies: never more than the `limit` they were kept under.
    private(set) var bytes = 0
    /// The keys of the copies, least recently used first.
    private var recency = RecencyList<CacheKey>()

    var count: Int { copies.count }

    subscript(key: CacheKey) -> CacheEntry? { copies[key] }

    /// Keeps `entry` under `key` (which has no copy) when its body fits in `limit` once the least recently used copies
    /// are dropped, at most `batch` of them: the store's lock is held (the epoll loop takes it), so a large copy among
    /// many small ones is kept by a later read, once enough have gone (review: thousands dropped in one hold).
    /// - Returns: the kept copy's handle (nil: not kept), and the copies dropped, for the caller to clear their
    ///   records' handles and to free after its lock.
    /// - Parameter asOldest: keep it as the least recently used copy (one read at start, newest first, that no request
    ///   has used: `DiskStore.warmUp`), not the most.
    mutating func keep(
        _ entry: CacheEntry, for key: CacheKey, limit: Int, batch: Int, asOldest: Bool = false
    ) -> (use: Handle?, dropped: [(key: CacheKey, entry: CacheEntry)]) {
        var dropped: [(key: CacheKey, entry: CacheEntry)] = []
        while bytes + entry.body.count > limit, dropped.count < batch, let oldest = recency.removeOldest() {
            if let old = copies.removeValue(forKey: oldest) {
                bytes -= old.body.count
                dropped.append((oldest, old))
            }
        }
        guard bytes + entry.body.count <= limit else { return (nil, dropped) }
        copies[key] = entry
        bytes += entry.body.count
        return (asOldest ? recency.insertOldest(key) : recency.insertNewest(key), dropped)
    }

    /// Moves a copy to the most recently used end.
    mutating func touch(_ use: Handle) {
        recency.moveToNewest(use)
    }

    /// Drops `key`'s copy, if any; `use` is its handle (from its record).
    @discardableResult
    mutating func drop(_ key: CacheKey, use: Handle?) -> CacheEntry? {
        guard let old = copies.removeValue(forKey: key) else { return nil }
        bytes -= old.body.count
        if let use { recency.remove(use) }
        return old
    }

    /// Drops every copy, and returns them (freed by the caller after its lock).
    mutating func dropAll() -> [CacheKey: CacheEntry] {
        defer { self = EntryCopies() }
        return copies
    }
}

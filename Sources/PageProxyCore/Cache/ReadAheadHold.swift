/// The entries a `DiskStore` read ahead of the lookups that will want them (`DiskStore.readAhead`), verified and held
/// until a lookup takes them: at most `countLimit` entries and a byte limit, each counted by its body's length, also
/// when the body was left in its file (review19 R1: counted as 0 bytes, a walk's read-ahead was bounded only by the
/// descriptors it could take).
struct ReadAheadHold {
    private var entries: [CacheKey: DiskStore.ReadAhead] = [:]
    /// The keys held, oldest first (some may have been taken since).
    private var order: [CacheKey] = []
    /// The body bytes held.
    private(set) var bytes = 0
    let countLimit: Int

    init(countLimit: Int) {
        self.countLimit = countLimit
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    func holds(_ key: CacheKey) -> Bool { entries[key] != nil }

    /// Holds `ahead` for `key` (which the caller found not held, with room made by `hasRoom`).
    mutating func hold(_ ahead: DiskStore.ReadAhead, for key: CacheKey) {
        entries[key] = ahead
        order.append(key)
        bytes += ahead.entry.bodyCount
        // Keys taken by lookups stay in the order until they reach its front: keep it from growing past them.
        if order.count > 2 * countLimit {
            let held = entries
            order.removeAll { held[$0] == nil }
        }
    }

    /// `key`'s entry, taken (a lookup uses it once) when it is still the version `generation`; one of another version
    /// is dropped into `released`.
    mutating func take(_ key: CacheKey, generation: UInt64, released: inout [CacheEntry]) -> DiskStore.ReadAhead? {
        guard let ahead = drop(key) else { return nil }
        guard ahead.generation == generation else {
            released.append(ahead.entry)
            return nil
        }
        return ahead
    }

    /// Drops `key`'s entry, if any, and returns it.
    @discardableResult
    mutating func drop(_ key: CacheKey) -> DiskStore.ReadAhead? {
        guard let ahead = entries.removeValue(forKey: key) else { return nil }
        bytes -= ahead.entry.bodyCount
        return ahead
    }

    /// Whether `more` bytes may be held under `byteLimit`; when not, drops into `released` the entries left by walks
    /// that ended (held while `countLimit` × 2 uses of the store ran and none took them, `useCounter` now), oldest
    /// first, and asks again.
    mutating func hasRoom(for more: Int, byteLimit: Int, useCounter: UInt64, released: inout [CacheEntry]) -> Bool {
        func fits() -> Bool { entries.count < countLimit && bytes + more <= byteLimit }
        while !fits(), let oldest = order.first {
            guard let held = entries[oldest] else {
                order.removeFirst()
                continue
            }
            guard useCounter - held.heldAtUse > 2 * UInt64(countLimit) else { return false }
            order.removeFirst()
            drop(oldest)
            released.append(held.entry)
        }
        return fits()
    }

    /// Drops every entry held, and returns them (released by the caller after its lock).
    mutating func dropAll() -> [CacheKey: DiskStore.ReadAhead] {
        defer { self = ReadAheadHold(countLimit: countLimit) }
        return entries
    }
}

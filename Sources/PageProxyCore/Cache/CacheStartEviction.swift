/// What a store over its bound when it opens tells of the eviction that brings it down (attack15 M2: 97,772 victims
/// were removed before the port opened, minutes without a log line). The eviction runs in the background; meanwhile
/// the store serves what it holds, and a page it has no room for is not stored (no write waits for the eviction).
package enum CacheStartEviction: Sendable, Equatable {
    /// Before it starts: the entries and bytes found, and the bound.
    case began(entries: Int, bytes: Int, maxBytes: Int)
    /// Once done: how many entries and bytes it removed, and how long it took.
    case ended(evictedEntries: Int, evictedBytes: Int, duration: Duration)
    /// Given up after `duration`: a lock of the directory stayed held past `CacheDirectoryLedger.busyWait` (another
    /// process evicting, or frozen in its hold). Writes that find no room evict for themselves from then on.
    case gaveUp(duration: Duration)
}

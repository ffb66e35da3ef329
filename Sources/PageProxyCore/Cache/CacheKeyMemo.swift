import Synchronization

/// Cache keys computed recently, by a `KeyedDigest` of the exact bytes they digest (the URL and every header sent): a
/// walk asks for the same pages' keys again and again, and a SHA-256 per page was 7 % of a walk through the cache
/// (issue 13).
///
/// The inputs themselves are not kept: they hold the headers sent upstream, credentials included, which outlived
/// their requests here (attack7), as did 64 KB cursor URLs (attack5 F4: 4,096 of them held 256 MB). Bounded: past
/// `capacity` keys it starts again empty; each is a digest and 64 digits, whatever its input's length.
package final class CacheKeyMemo: Sendable {
    /// The memo every `CacheKey` uses unless told otherwise.
    package static let shared = CacheKeyMemo(capacity: 4096)

    package let capacity: Int
    private let keys = Mutex<[KeyedDigest: String]>([:])

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many keys are held.
    package var count: Int { keys.withLock { $0.count } }

    /// The key of `input`: remembered, or computed by `compute` (outside the lock) and remembered.
    func hex(for input: [UInt8], compute: () -> String) -> String {
        let input = KeyedDigest(input)
        if let known = keys.withLock({ $0[input] }) { return known }
        let hex = compute()
        // The keys dropped when full are freed after the lock (a walk on the epoll loop may be waiting for it).
        let dropped = keys.withLock { keys -> [KeyedDigest: String] in
            var dropped: [KeyedDigest: String] = [:]
            if keys.count >= capacity { swap(&dropped, &keys) }
            keys[input] = hex
            return dropped
        }
        _ = dropped
        return hex
    }
}

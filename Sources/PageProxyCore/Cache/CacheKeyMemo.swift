import Synchronization

/// Cache keys computed recently, by the exact bytes they digest (the URL and every header sent): a walk asks for the
/// same pages' keys again and again, and a SHA-256 per page was 7 % of a walk through the cache (issue 13).
///
/// Bounded: past `capacity` inputs, or `maxBytes` of them, it starts again empty (attack5 F4: bounded by slots alone,
/// 4096 inputs of 64 KB cursor URLs held 256 MB past their walks).
/// The inputs hold the headers sent upstream, credentials included, in this process's memory only, as the requests
/// themselves do.
package final class CacheKeyMemo: Sendable {
    /// The memo every `CacheKey` uses unless told otherwise.
    package static let shared = CacheKeyMemo(capacity: 4096)

    package let capacity: Int
    /// The most bytes of inputs held together; an input longer than this alone is digested each time.
    package let maxBytes: Int
    private let keys = Mutex<(entries: [Input: String], bytes: Int)>(([:], 0))

    /// A key's input, hashed as one run of bytes (an array's own hashing feeds the hasher a byte at a time).
    private struct Input: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    package init(capacity: Int, maxBytes: Int = 16 << 20) {
        self.capacity = max(1, capacity)
        self.maxBytes = maxBytes
    }

    /// How many keys are held.
    package var count: Int { keys.withLock { $0.entries.count } }

    /// How many bytes of inputs are held.
    package var heldBytes: Int { keys.withLock { $0.bytes } }

    /// The key of `input`: remembered, or computed by `compute` (outside the lock) and remembered.
    func hex(for input: [UInt8], compute: () -> String) -> String {
        guard input.count <= maxBytes else { return compute() }
        let input = Input(bytes: input)
        if let known = keys.withLock({ $0.entries[input] }) { return known }
        let hex = compute()
        // The keys dropped when full are freed after the lock (a walk on the epoll loop may be waiting for it).
        let dropped = keys.withLock { keys -> [Input: String] in
            var dropped: [Input: String] = [:]
            if keys.entries.count >= capacity || keys.bytes + input.bytes.count > maxBytes {
                swap(&dropped, &keys.entries)
                keys.bytes = 0
            }
            if keys.entries.updateValue(hex, forKey: input) == nil { keys.bytes += input.bytes.count }
            return dropped
        }
        _ = dropped
        return hex
    }
}

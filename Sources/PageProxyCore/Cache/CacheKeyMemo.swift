import Synchronization

/// Cache keys computed recently, by the exact bytes they digest (the URL and every header sent): a walk asks for the
/// same pages' keys again and again, and a SHA-256 per page was 7 % of a walk through the cache (issue 13).
///
/// Bounded: past `capacity` inputs it starts again empty, so memory stays at most `capacity` keys and their inputs.
/// The inputs hold the headers sent upstream, credentials included, in this process's memory only, as the requests
/// themselves do.
package final class CacheKeyMemo: Sendable {
    /// The memo every `CacheKey` uses unless told otherwise.
    package static let shared = CacheKeyMemo(capacity: 4096)

    package let capacity: Int
    private let keys = Mutex<[Input: String]>([:])

    /// A key's input, hashed as one run of bytes (an array's own hashing feeds the hasher a byte at a time).
    private struct Input: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many keys are held.
    package var count: Int { keys.withLock { $0.count } }

    /// A longer input (an upstream's cursor in the URL) is digested each time, not kept: slots are counted, not bytes,
    /// and 4096 inputs of 64 KB cursors held 256 MB past their walks (attack5 F4, after the walker kept only its window).
    package static let maxKeptInputBytes = 4096

    /// The key of `input`: remembered, or computed by `compute` (outside the lock) and remembered.
    func hex(for input: [UInt8], compute: () -> String) -> String {
        guard input.count <= Self.maxKeptInputBytes else { return compute() }
        let input = Input(bytes: input)
        if let known = keys.withLock({ $0[input] }) { return known }
        let hex = compute()
        // The keys dropped when full are freed after the lock (a walk on the epoll loop may be waiting for it).
        let dropped = keys.withLock { keys -> [Input: String] in
            var dropped: [Input: String] = [:]
            if keys.count >= capacity { swap(&dropped, &keys) }
            keys[input] = hex
            return dropped
        }
        _ = dropped
        return hex
    }
}

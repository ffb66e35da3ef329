import Glibc

/// A buffer of `byteCount` bytes per thread, made at the thread's first use and reused by every later one, freed when
/// the thread ends: where an entry's body is read to be hashed and not kept (issue 13, fourteenth pass). A fresh
/// array an entry was ~3,000 page faults on a first read-back after a restart; the same small buffer a thread faults
/// in once and then finds in its cache.
enum ThreadScratch {
    /// Small enough to stay in a core's L2 next to what the walk touches, large enough that a ~21 KB page is one read.
    static let byteCount = 128 << 10

    /// The key of each thread's buffer (its destructor frees it).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // Without a key no thread gets a buffer (`buffer()` is then nil and the caller reads as before): never a crash.
        guard pthread_key_create(&key, { free($0) }) == 0 else { return pthread_key_t.max }
        return key
    }()

    /// Calls `body` with the calling thread's buffer (or, when it cannot be had, one of its own, freed after).
    ///
    /// Only the calling thread uses it, and only within `body`, which must not suspend nor call anything that uses
    /// the buffer too.
    static func with<Result, Failure: Error>(
        _ body: (UnsafeMutableRawBufferPointer) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        if let held = buffer() { return try body(held) }
        let own = UnsafeMutableRawBufferPointer.allocate(byteCount: byteCount, alignment: 64)
        defer { own.deallocate() }
        return try body(own)
    }

    /// The calling thread's buffer; nil when it cannot be made (out of memory, no key).
    private static func buffer() -> UnsafeMutableRawBufferPointer? {
        guard key != pthread_key_t.max else { return nil }
        if let held = pthread_getspecific(key) { return UnsafeMutableRawBufferPointer(start: held, count: byteCount) }
        guard let made = malloc(byteCount) else { return nil }
        guard pthread_setspecific(key, made) == 0 else {
            free(made)
            return nil
        }
        return UnsafeMutableRawBufferPointer(start: made, count: byteCount)
    }
}

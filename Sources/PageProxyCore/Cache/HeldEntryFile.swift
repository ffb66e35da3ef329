import Glibc

/// An entry file's descriptor kept open past its read, so that the verified body can be sent straight from the file
/// (read from the page cache into the socket's staging buffer as it is sent, `AsyncSocket.write(bodyParts:)`) instead
/// of from an array kept for it (issue 13, eighth pass: on the first merged read-back after a restart the answer's
/// bodies were fresh memory, ~3,200 page faults and a quarter of its CPU). Closed once, when the last holder lets it
/// go.
///
/// Why the bytes sent are the bytes verified: entries are only ever replaced by `rename` (`CacheFileSystem`), which
/// leaves an open descriptor on the old inode, whose bytes do not change; eviction unlinks, which leaves them too. The
/// body was XXH64-verified through this very descriptor. Another process that truncated or rewrote the file *in
/// place* after the read would make the send short (the connection then closes short of its `Content-Length`: the
/// client sees an incomplete answer) or, for a rewrite of the same length, wrong: PageProxy never writes an entry in
/// place, and a cache directory shared with a program that does is not supported.
package final class HeldEntryFile: Sendable {
    /// The open descriptor (read-only).
    package let descriptor: Int32
    /// Where the entry's body starts in the file.
    package let bodyOffset: Int
    private let budget: HeldEntryFileBudget

    /// Takes `descriptor` (the caller must not close it) and one of `budget`'s places, or returns nil (the caller
    /// closes it) when the budget has none left.
    package init?(descriptor: Int32, bodyOffset: Int, budget: HeldEntryFileBudget) {
        guard budget.take() else { return nil }
        self.descriptor = descriptor
        self.bodyOffset = bodyOffset
        self.budget = budget
    }

    deinit {
        close(descriptor)
        budget.giveBack()
    }

    /// `count` bytes of the body from `offset` (in the body), read back into memory (for a sink that cannot send from
    /// a file, and the memo); nil when the file no longer has them.
    package func readBody(_ range: Range<Int>) -> [UInt8]? {
        guard !range.isEmpty else { return [] }
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: range.count) { buffer, initialized in
            var done = 0
            while done < range.count, let base = buffer.baseAddress {
                let count = pread(descriptor, base + done, range.count - done, off_t(bodyOffset + range.lowerBound + done))
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                done += count
            }
            complete = done == range.count
            initialized = done
        }
        return complete ? bytes : nil
    }
}

/// How many entry files the process may hold open for sending (`HeldEntryFile`), shared by every answer: a c=32 load
/// of 500-page walks must never run the process out of descriptors. Past it, pages are held as bytes, as before.
package final class HeldEntryFileBudget: Sendable {
    private let held: BoundedCount

    package init(capacity: Int) {
        held = BoundedCount(limit: capacity)
    }

    /// The descriptors the budget allows at once.
    package var capacity: Int { held.limit }

    /// The process's: a quarter of the soft limit on open descriptors, at most `maxShared`.
    package static let shared = HeldEntryFileBudget(capacity: sharedCapacity())

    /// None: every page is held as bytes (`cache.sendFromFiles` off, the default: a first read sent from the files keeps
    /// no copy, so the second answer after a restart reads them all again, ~3× the CPU of one from memory —
    /// BENCHMARKS.md, issue 13 twelfth pass).
    package static let none = HeldEntryFileBudget(capacity: 0)

    /// The most descriptors the shared budget holds, whatever the limit.
    static let maxShared = 4096

    private static func sharedCapacity() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        // No limit (`RLIM_INFINITY`, all ones) is `maxShared` too.
        return Int(min(UInt64(limit.rlim_cur) / 4, UInt64(maxShared)))
    }

    /// How many are held now.
    package var heldCount: Int { held.count }

    /// Takes a place; false (nothing taken) when none is left.
    fileprivate func take() -> Bool { held.take(1) }

    fileprivate func giveBack() {
        held.giveBack(1)
    }
}

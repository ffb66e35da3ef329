import Glibc

/// An entry file's descriptor kept open past its read, so that the verified body can be sent straight from the file
/// (read from the page cache into the socket's staging buffer as it is sent, `AsyncSocket.write(bodyParts:)`) instead
/// of from an array kept for it (issue 13, eighth pass: on the first merged read-back after a restart the answer's
/// bodies were fresh memory, ~3,200 page faults and a quarter of its CPU). Closed once, when the last holder lets it
/// go.
///
/// Why the bytes sent are the bytes verified: entries are only ever replaced by `rename` (`CacheFileSystem`), which
/// leaves an open descriptor on the old inode, whose bytes do not change; eviction unlinks, which leaves them too. The
/// body was XXH64-verified through this very descriptor. PageProxy never writes an entry in place; another program that
/// truncated or rewrote the file *in place* after the read changes its size or its times, which the sender compares
/// with `stamp` (taken before the read) once it has read a range (`isUnchanged`, attack13 L1): a change cuts the
/// answer (the connection closes short of its `Content-Length`: the client sees an incomplete answer) and has the
/// store remove the entry (`reportChanged`). PageProxy's own refresh of the file's times moves `stamp` with them
/// (`HeldFileStamps`, review20 F4).
package final class HeldEntryFile: Sendable {
    /// The open descriptor (read-only).
    package let descriptor: Int32
    /// Where the entry's body starts in the file.
    package let bodyOffset: Int
    /// The file's size and times when it was opened, before its bytes were read and verified, as PageProxy's own
    /// touches of it since have left them.
    package var stamp: Stamp { cell.stamp }
    private let cell: HeldFileStamps.Cell
    private let budget: HeldEntryFileBudget
    /// Told, with the file's inode, when the file is found changed since `stamp` (the store removes the entry, that
    /// inode only); nil: nothing to tell.
    private let onChanged: (@Sendable (_ inode: UInt64) -> Void)?

    /// What an in-place write changes: the size, and the modification and change times (nanoseconds); and which file.
    package struct Stamp: Sendable, Equatable {
        package var device: UInt64
        package var inode: UInt64
        package var size: Int
        package var modified: Int64
        package var changed: Int64
        /// The file's link count: `rename` over it and `unlink` drop it, and change its `ctime` with it.
        package var links: UInt64

        package init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int(info.st_size)
            modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            changed = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
            links = UInt64(info.st_nlink)
        }

        /// Whether a file stamped `now` after this stamp can still hold the bytes it held: same inode, size and
        /// modification time, and the same change time unless its link count changed since (a backup's hard link,
        /// `cp -al`, raises it: retest15 N7). An entry replaced by
        /// `rename` or removed by `unlink` (PageProxy's own writes, revalidations and evictions, an `rm` of the
        /// directory) loses its last link, which changes its `ctime` but not its bytes (attack15 H1: every answer sent
        /// from files under a revalidation was cut after its first byte); a write in place changes `mtime` (and `ctime`
        /// with the links unchanged, were `mtime` set back).
        package func holdsTheSameBytes(as now: Stamp) -> Bool {
            device == now.device && inode == now.inode && size == now.size && modified == now.modified && (changed == now.changed || now.links != links)
        }

        /// Whether a file stamped `now` is still the version of the entry this stamp was taken of (an answer's manifest):
        /// the same inode, size and modification time. Not the change time: PageProxy's own refresh of an entry's access
        /// time (the LRU order) changes it and nothing else, and dropped, at the next restart, every answer built on a
        /// page hit since. A version PageProxy writes is a new file (`rename`), whose modification time is its write's
        /// even where the file system hands its inode number out again.
        package func isSameVersion(as now: Stamp) -> Bool {
            device == now.device && inode == now.inode && size == now.size && modified == now.modified
        }
    }

    /// Takes `descriptor` (the caller must not close it) and one of `budget`'s places, or returns nil (the caller
    /// closes it) when the budget has none left, or the file's times are no longer `stamp`'s.
    /// - Parameters:
    ///   - stamp: the file's `fstat` taken before its bytes were read; nil: taken now.
    ///   - onChanged: told once the sender finds the file changed in place (`reportChanged`).
    package init?(
        descriptor: Int32, bodyOffset: Int, budget: HeldEntryFileBudget, stamp: Stamp? = nil,
        onChanged: (@Sendable (_ inode: UInt64) -> Void)? = nil
    ) {
        guard budget.take() else { return nil }
        var now = stat()
        if stamp == nil { _ = fstat(descriptor, &now) }
        // Touched by PageProxy between the stamp and now (or written in place): not held; the caller reads it whole.
        guard let cell = HeldFileStamps.shared.hold(stamp ?? Stamp(now), descriptor: descriptor, checking: stamp != nil) else {
            budget.giveBack()
            return nil
        }
        self.descriptor = descriptor
        self.bodyOffset = bodyOffset
        self.budget = budget
        self.onChanged = onChanged
        self.cell = cell
    }

    /// Whether the file still holds the bytes it held at `stamp` (one `fstat`): no one wrote it in place since.
    package func isUnchanged() -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        // Else asked again under the lock PageProxy's own touch holds while it moves the stamp.
        return cell.stamp.holdsTheSameBytes(as: Stamp(info)) || HeldFileStamps.shared.isUnchanged(cell, descriptor: descriptor)
    }

    /// Tells the store that the file changed in place (it removes the entry, that inode only).
    package func reportChanged() {
        onChanged?(stamp.inode)
    }

    deinit {
        HeldFileStamps.shared.letGo(cell)
        close(descriptor)
        budget.giveBack()
    }

    /// `count` bytes of the body from `offset` (in the body), read back into memory (for a sink that cannot send from
    /// a file, and the memo); nil when the file no longer has them.
    package func readBody(_ range: Range<Int>) -> [UInt8]? {
        guard !range.isEmpty else { return [] }
        var complete = false
        let bytes = [UInt8](unsafeUninitializedCapacity: range.count) { buffer, initialized in
            initialized = readBody(range, into: UnsafeMutableRawBufferPointer(buffer))
            complete = initialized == range.count
        }
        return complete ? bytes : nil
    }

    /// Reads the body's `range` into the start of `buffer` (at least `range.count` bytes); returns how many bytes were
    /// read: fewer than `range.count` when the file no longer has them.
    package func readBody(_ range: Range<Int>, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        precondition(buffer.count >= range.count, "the buffer holds the range")
        var done = 0
        while done < range.count, let base = buffer.baseAddress {
            let count = pread(descriptor, base + done, range.count - done, off_t(bodyOffset + range.lowerBound + done))
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            done += count
        }
        return done
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

    /// Whether a place is free now (another thread may take it before the caller does).
    package var hasRoom: Bool { held.count < held.limit }

    /// Takes a place; false (nothing taken) when none is left.
    fileprivate func take() -> Bool { held.take(1) }

    fileprivate func giveBack() {
        held.giveBack(1)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A line below the soft limit on open descriptors that client and upstream sockets never cross.
///
/// The process must never run out of descriptors: libdispatch's worker-pool monitor opens `/proc/<tid>/stat` about
/// once a second while work is queued and crashes the process (SIGILL, "workq: registered worker exited
/// prematurely") when that open fails, so EMFILE at the wrong moment ended every answer in flight (attack13 H2: 200
/// clients against `ulimit -n 256`). Descriptors are numbered lowest-free first, so a socket numbered past the line
/// means every descriptor below it is taken: it is closed at once instead of kept (a client gets the quick 503, an
/// upstream connection is not tried). What stays above the line is for what is not counted here: the entry files
/// the cache holds open (pages sent from their files, persisted merged answers: their own budget,
/// `HeldEntryFileBudget`), the cache's and the spool's short-lived files, libdispatch's reads, and `spare` more.
package enum DescriptorReserve {
    /// Descriptors kept free beyond the held entry files' budget.
    package static let spare = 32

    /// No line until `keep` draws one (tests in one process share it): every descriptor number is below it.
    private static let drawnLine = Atomic<Int>(Int.max)

    /// The line now; `Int.max` when none is drawn.
    package static var current: Int { drawnLine.load(ordering: .relaxed) }

    /// The lowest descriptor free when the line was drawn: about as many as the process held then (its own files,
    /// the listener, the cache directory), which no client connection can use.
    private static let heldAtLine = Atomic<Int>(0)

    /// Where the line goes for a soft limit of `softLimit`, `heldEntryFiles` entry files held at most, and `openNow`
    /// descriptors held already. Under a very low limit the spare shrinks (to a quarter) before the line falls below
    /// a few connections' room: retest13 N1, at a limit of 48 the line sat below the 20 descriptors held at start and
    /// every client, `/healthz` too, was refused.
    package static func line(softLimit: UInt64, heldEntryFiles: Int, openNow: Int = 0) -> Int {
        let soft = Int(min(softLimit, UInt64(Int.max)))
        let room = min(openNow + 8, soft - spare / 4)
        return max(0, soft - heldEntryFiles - spare, room)
    }

    /// Draws the line from the process's soft limit (`serve` does, once its limit is raised); returns it.
    @discardableResult
    package static func keep(heldEntryFiles: Int) -> Int? {
        guard let soft = OpenFileLimit.soft else { return nil }
        let openNow = lowestFreeDescriptor()
        let drawn = line(softLimit: soft, heldEntryFiles: heldEntryFiles, openNow: openNow)
        heldAtLine.store(openNow, ordering: .relaxed)
        drawnLine.store(drawn, ordering: .relaxed)
        return drawn
    }

    /// The number the next descriptor would get (the kernel hands out the lowest free one).
    private static func lowestFreeDescriptor() -> Int {
        let probe = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard probe >= 0 else { return 0 }
        close(probe)
        return Int(probe)
    }

    /// Whether a socket that got descriptor `fd` may keep it.
    package static func admits(_ fd: Int32) -> Bool {
        Int(fd) < current
    }

    /// Whether a file that got descriptor `fd` (a spool of a merged answer) may keep it: past the line by at most half
    /// the spare, so that files the line does not count can never take the last descriptors (review16 R1: a spool a
    /// client, each with its sockets below the line, could take the spare and bring back attack13 H2's crash).
    package static func admitsFile(_ fd: Int32, line: Int = current) -> Bool {
        line == Int.max || Int(fd) < line + spare / 2
    }

    /// The most client connections that fit below `line`, above the `held` descriptors the process holds already:
    /// each may hold an upstream connection too.
    package static func maxConnections(below line: Int, held: Int = heldAtLine.load(ordering: .relaxed)) -> Int {
        max(1, (line - held) / 2)
    }
}

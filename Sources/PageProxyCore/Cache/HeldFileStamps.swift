import Glibc
import Synchronization

/// The stamps of the entry files held open for sending (`HeldEntryFile`), by file, so that PageProxy's own refresh of
/// an entry file's access time (the LRU order that survives a restart: `DiskStore` refreshes it every 64th hit, by path
/// or through a descriptor; it changes the file's change time too) is not taken by the answers sending from that file for a write in place (review20 F4: the
/// answer was cut short of its `Content-Length`, and the good entry removed).
///
/// A touch runs under this registry's lock, and moves the stamps of that file's held copies to its times after the
/// touch, but only those still equal to its times just before it: a write by another program since a copy was stamped
/// is still found by its sender (attack13 L1). A copy is held only if its file still has the times of its stamp when
/// it is registered (a touch that came between its stamp and its registration: it is not held, and its entry is read
/// into memory instead). One registry for the process: every store's touch, every held copy.
package final class HeldFileStamps: Sendable {
    /// A held copy's stamp, which a touch by PageProxy may move.
    package final class Cell: Sendable {
        fileprivate let file: FileID
        private let current: Mutex<HeldEntryFile.Stamp>

        fileprivate init(_ stamp: HeldEntryFile.Stamp) {
            file = FileID(device: stamp.device, inode: stamp.inode)
            current = Mutex(stamp)
        }

        /// The file's size and times as PageProxy last left them.
        package var stamp: HeldEntryFile.Stamp { current.withLock { $0 } }

        /// Moves the stamp to `after` when it is `before`.
        fileprivate func move(from before: HeldEntryFile.Stamp, to after: HeldEntryFile.Stamp) {
            current.withLock { if $0 == before { $0 = after } }
        }
    }

    fileprivate struct FileID: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    private let held = Mutex<[FileID: [ObjectIdentifier: Cell]]>([:])

    package static let shared = HeldFileStamps()

    /// A cell for a copy of a file stamped `stamp`, registered when `descriptor` still has those times (nil: it does
    /// not; the caller does not hold the file). Without `checking`, the stamp was taken just now: registered as it is.
    package func hold(_ stamp: HeldEntryFile.Stamp, descriptor: Int32, checking: Bool) -> Cell? {
        let cell = Cell(stamp)
        return held.withLock { held in
            guard !checking || Self.stamp(of: descriptor).map(stamp.holdsTheSameBytes(as:)) == true else { return nil }
            held[cell.file, default: [:]][ObjectIdentifier(cell)] = cell
            return cell
        }
    }

    /// Forgets a cell whose copy was let go.
    package func letGo(_ cell: Cell) {
        held.withLock { held in
            held[cell.file]?[ObjectIdentifier(cell)] = nil
            if held[cell.file]?.isEmpty == true { held[cell.file] = nil }
        }
    }

    /// Whether `descriptor`'s times are still `cell`'s, compared under the lock: a touch under way has moved it.
    package func isUnchanged(_ cell: Cell, descriptor: Int32) -> Bool {
        held.withLock { _ in Self.stamp(of: descriptor).map(cell.stamp.holdsTheSameBytes(as:)) == true }
    }

    /// The times a touch sets: the access time to now, the modification time left as it is. The modification time stays
    /// the time the entry was written, which an answer's manifest compares (h13-answer16 leftover: a touch that moved it
    /// dropped, at the next restart, every answer built on a page hit since); the access time is the LRU order, which
    /// reads never move (entry files are opened with `O_NOATIME`).
    private static let accessTimeNow = [timespec(tv_sec: 0, tv_nsec: utimeNow), timespec(tv_sec: 0, tv_nsec: utimeOmit)]
    /// `<sys/stat.h>`'s `UTIME_NOW` and `UTIME_OMIT` (macros Swift does not import): "now", and "leave it".
    private static let utimeNow = (1 << 30) - 1
    private static let utimeOmit = (1 << 30) - 2

    /// Sets the access time of the file at `path` to now (`utimensat`), moving its held copies' stamps.
    package func touch(_ path: String) {
        held.withLock { held in
            guard !held.isEmpty, let before = Self.stamp(ofPath: path) else {
                _ = utimensat(AT_FDCWD, path, Self.accessTimeNow, 0)
                return
            }
            guard utimensat(AT_FDCWD, path, Self.accessTimeNow, 0) == 0, let after = Self.stamp(ofPath: path) else { return }
            Self.move(&held, from: before, to: after)
        }
    }

    /// Sets the access time of the open `descriptor`'s file to now (`futimens`), moving its held copies' stamps; `info`
    /// is its `fstat` before, and becomes the one after. False when the time could not be set.
    ///
    /// The stamps moved are those equal to the file's times looked at again under the lock, just before the touch, as
    /// `touch(_ path:)` does, not to `info`: a walk and the read-ahead thread sometimes read one file side by side, and
    /// the second's `info`, taken before the first's touch, moved nothing, so that the first's held copy was found
    /// changed by its own process's touch (flake23: its answer cut short, the good entry removed).
    package func touch(_ descriptor: Int32, _ info: inout stat) -> Bool {
        held.withLock { held in
            let before = held.isEmpty ? nil : Self.stamp(of: descriptor)
            guard futimens(descriptor, Self.accessTimeNow) == 0 else { return false }
            var touched = stat()
            guard fstat(descriptor, &touched) == 0 else { return true }
            if let before { Self.move(&held, from: before, to: HeldEntryFile.Stamp(touched)) }
            info = touched
            return true
        }
    }

    private static func move(_ held: inout [FileID: [ObjectIdentifier: Cell]], from before: HeldEntryFile.Stamp, to after: HeldEntryFile.Stamp) {
        // A file renamed over the path between the two looks is another file: nothing of the first one moves.
        guard before.inode == after.inode, before.device == after.device else { return }
        guard let cells = held[FileID(device: before.device, inode: before.inode)] else { return }
        for cell in cells.values { cell.move(from: before, to: after) }
    }

    private static func stamp(of descriptor: Int32) -> HeldEntryFile.Stamp? {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? HeldEntryFile.Stamp(info) : nil
    }

    private static func stamp(ofPath path: String) -> HeldEntryFile.Stamp? {
        var info = stat()
        return stat(path, &info) == 0 ? HeldEntryFile.Stamp(info) : nil
    }
}

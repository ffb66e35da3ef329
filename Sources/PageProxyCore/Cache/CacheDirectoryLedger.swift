import Dispatch
import Glibc
import Synchronization

/// What the processes sharing one cache directory agree on (replicas on one node, one volume), kept with `flock`:
/// the total bytes of the entry files, and which processes are alive to own their temporary files.
///
/// - `<directory>/.pageproxy-lock` is locked exclusively around every change of the total, which it holds as
///   decimal text. Each process adds a write's bytes before it renames the file into place (in the same hold of the
///   lock, so the entries on disk never pass the bound that all agree on), and subtracts what it removes only once
///   the file is gone from its place. A process killed between the two leaves the total too high, never too low.
/// - `<directory>/.pageproxy-evict-lock` is locked by the one process that evicts, for the whole eviction: two
///   evictions never pick the same victims, and an eviction's `unlink`s run holding this lock only, so writers (who
///   take only the first) do not wait for them. Lock order: this one first, then the directory's.
/// - `<directory>/.pageproxy-instance-<id>` is locked by its process for its lifetime, and the process's temporary
///   files carry the same id. Start-up cleanup removes a temporary only when no process holds its id's lock, so a
///   starting replica never deletes a live one's half-written entry. Locks die with their process (`kill -9`
///   included), and `flock` works across PID namespaces, as containers sharing a volume have. A start also removes
///   the instance files no process holds (those of processes killed).
///
/// `flock` needs a local file system (not every network file system honours it).
package final class CacheDirectoryLedger: Sendable {
    /// This process's id in the names of its temporary files: 16 hexadecimal digits.
    package let instance: String
    private let directory: String
    private let lockDescriptor: Int32
    private let instanceDescriptor: Int32
    private let evictionDescriptor: Int32
    /// `flock` excludes other processes; this excludes this process's other threads (they share the descriptor).
    private let threads = Mutex(())
    /// The same for the eviction lock.
    private let evictingThreads = Mutex(())
    /// By lock file name: until when (`DispatchTime` nanoseconds) the lock is taken as busy, a bounded wait for it
    /// having run out (`withLockUnlessBusy`), and whether `onBusy` was told; no value once it was taken since.
    private let busy = Mutex<[String: (until: UInt64, told: Bool)]>([:])
    /// Told (with the lock file's path) when a bounded wait for a lock runs out, once until a lock is taken again.
    private let onBusy: (@Sendable (_ lock: String) -> Void)?

    package static let lockName = ".pageproxy-lock"
    package static let evictionLockName = ".pageproxy-evict-lock"
    package static let instancePrefix = ".pageproxy-instance-"

    /// Opens (creating) the lock file and locks this process's instance file.
    package init(directory: String, onBusy: (@Sendable (_ lock: String) -> Void)? = nil) throws(CacheFileSystem.Failure) {
        self.directory = directory
        self.onBusy = onBusy
        let lockPath = directory + "/" + Self.lockName
        lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lockDescriptor >= 0 else { throw CacheFileSystem.Failure(call: "open", path: lockPath, errno: errno) }
        let evictionPath = directory + "/" + Self.evictionLockName
        evictionDescriptor = open(evictionPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard evictionDescriptor >= 0 else {
            let failure = CacheFileSystem.Failure(call: "open", path: evictionPath, errno: errno)
            close(lockDescriptor)
            throw failure
        }
        do {
            (instance, instanceDescriptor) = try Self.lockInstanceFile(in: directory)
        } catch {
            close(lockDescriptor)
            close(evictionDescriptor)
            throw error
        }
        removeDeadInstanceFiles()
    }

    /// Creates and locks this process's instance file under a new random id. Another process's start-up may find the
    /// file between its creation and its lock: hold it (its probe), so the lock fails; or take it for a dead one's and
    /// remove it, so the lock held is on a file no one else can open, and the process would look dead (its
    /// temporaries removed). Either way it starts over under another id.
    private static func lockInstanceFile(in directory: String) throws(CacheFileSystem.Failure) -> (String, Int32) {
        var failure = CacheFileSystem.Failure(call: "flock", path: directory + "/" + instancePrefix, errno: EAGAIN)
        for _ in 0..<8 {
            let instance = String(UInt64.random(in: 1...UInt64.max), radix: 16).leftPadded(to: 16)
            let path = directory + "/" + instancePrefix + instance
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw CacheFileSystem.Failure(call: "open", path: path, errno: errno) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let code = errno
                close(descriptor)
                // Another start's probe holds the new file for the moment it takes to see it is not dead (review):
                // a new id, not a cache disabled for this process's life.
                failure = CacheFileSystem.Failure(call: "flock", path: path, errno: code)
                if code == EWOULDBLOCK { continue }
                throw failure
            }
            var (held, named) = (stat(), stat())
            if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                return (instance, descriptor)
            }
            failure = CacheFileSystem.Failure(call: "flock", path: path, errno: ENOENT)
            close(descriptor)
        }
        throw failure
    }

    /// Removes the instance files no process holds: each `kill -9` left its own behind, one empty file per crash
    /// (attack3). A live process's file is locked and kept.
    private func removeDeadInstanceFiles() {
        for name in CacheFileSystem.names(in: directory) ?? [] where name.hasPrefix(Self.instancePrefix) {
            _ = isAlive(instance: String(name.dropFirst(Self.instancePrefix.count)))
        }
    }

    deinit {
        unlink(directory + "/" + Self.instancePrefix + instance)
        close(instanceDescriptor)
        close(evictionDescriptor)
        close(lockDescriptor)
    }

    /// Runs `body` holding the eviction lock; with `wait` false, returns false at once (without running it) when
    /// another thread or process holds it: an eviction is under way, and it will make the room. With `unlessBusy` (a
    /// write's eviction), waits as `withLockUnlessBusy` does, and returns false when it gave up.
    @discardableResult
    package func withEvictionLock(wait: Bool, unlessBusy: Bool = false, _ body: () -> Void) -> Bool {
        if wait, unlessBusy { return withEvictionLockUnlessBusy(body) }
        if wait { return evictingThreads.withLock { _ in holdingEvictionLock(wait: true, body) } }
        return evictingThreads.withLockIfAvailable { _ in holdingEvictionLock(wait: false, body) } ?? false
    }

    /// How long a write waits for a lock another process (or a thread of this one) holds before it gives up, and goes
    /// on with its page unstored (attack17 M3: a peer frozen in its hold, `docker pause` or a debugger, held every cold
    /// walk of every other process until its deadline, then a 504 that blamed the upstream). The lock is held for a
    /// `rename` and the total's update: a second is a peer stuck, not a peer busy.
    package static let busyWait = Duration.seconds(1)
    /// For how long after a wait ran out a write tries a lock only once, without waiting: the walks of a process whose
    /// peer is frozen lose a second once, not at every page.
    package static let busyQuiet = Duration.seconds(5)

    /// Whether a bounded wait for a lock ran out less than `busyQuiet` ago, and that lock was not taken since.
    package var isBusy: Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        return busy.withLock { $0.values.contains { $0.until > now } }
    }

    /// `withLock` for a write: waits at most `busyWait` for the lock (not at all while `isBusy`), then gives up and
    /// returns nil without running `body`. Polls (`LOCK_NB`, and the threads' mutex without blocking: a thread of this
    /// process may be blocked in `withLock` under it), pausing 0.1 ms, doubling up to 20 ms. Blocks its thread: never
    /// on the cooperative pool.
    package func withLockUnlessBusy<T>(_ body: (inout Int?) -> T) -> T? {
        holdingUnlessBusy(Self.lockName) { () -> T? in
            threads.withLockIfAvailable { _ -> T? in
                guard Self.tryLocking(lockDescriptor) else { return nil }
                defer { _ = flock(lockDescriptor, LOCK_UN) }
                let before = readTotal()
                var total = before
                let result = body(&total)
                if total != before { writeTotal(total) }
                return result
            } ?? nil
        }
    }

    /// `withLockUnlessBusy` when `bounded` (nil: given up), else `withLock`.
    package func withLock<T>(bounded: Bool, _ body: (inout Int?) -> T) -> T? {
        bounded ? withLockUnlessBusy(body) : withLock(body)
    }

    /// `withEvictionLock(wait: true)` for a write: gives up as `withLockUnlessBusy` does; false when it did.
    private func withEvictionLockUnlessBusy(_ body: () -> Void) -> Bool {
        holdingUnlessBusy(Self.evictionLockName) { () -> Void? in
            evictingThreads.withLockIfAvailable { _ -> Void? in
                guard Self.tryLocking(evictionDescriptor) else { return nil }
                defer { _ = flock(evictionDescriptor, LOCK_UN) }
                body()
                return ()
            } ?? nil
        } != nil
    }

    /// Calls `attempt` (nil: the lock `name` was not free) until it returns a value or the bound (`busyWait`, or none
    /// while that lock is busy) has passed; then marks it busy and tells `onBusy`, once until it is taken.
    private func holdingUnlessBusy<T>(_ name: String, _ attempt: () -> T?) -> T? {
        let start = DispatchTime.now().uptimeNanoseconds
        let busyNow = busy.withLock { $0[name].map { $0.until > start } ?? false }
        let bound = busyNow ? 0 : UInt64(Self.busyWait.components.seconds) * 1_000_000_000
        var pause: UInt32 = 100
        while true {
            if let result = attempt() {
                busy.withLock { if !$0.isEmpty { $0[name] = nil } }
                return result
            }
            let now = DispatchTime.now().uptimeNanoseconds
            guard now - start < bound else { break }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
        let quiet = UInt64(Self.busyQuiet.components.seconds) * 1_000_000_000
        let tell = busy.withLock { locks -> Bool in
            let told = locks[name]?.told ?? false
            locks[name] = (DispatchTime.now().uptimeNanoseconds + quiet, true)
            return !told
        }
        if tell { onBusy?(directory + "/" + name) }
        return nil
    }

    /// One `flock(LOCK_EX | LOCK_NB)`, retried on `EINTR`; whether it took the lock.
    private static func tryLocking(_ descriptor: Int32) -> Bool {
        var result = flock(descriptor, LOCK_EX | LOCK_NB)
        while result != 0 && errno == EINTR { result = flock(descriptor, LOCK_EX | LOCK_NB) }
        return result == 0
    }

    private func holdingEvictionLock(wait: Bool, _ body: () -> Void) -> Bool {
        let operation = wait ? LOCK_EX : LOCK_EX | LOCK_NB
        var result = flock(evictionDescriptor, operation)
        while result != 0 && errno == EINTR { result = flock(evictionDescriptor, operation) }
        guard result == 0 else { return false }
        defer { _ = flock(evictionDescriptor, LOCK_UN) }
        body()
        return true
    }

    /// Writes `total` to the lock file at once, inside `withLock`'s body, before the body acts on it (a write counted
    /// before its rename). The body then leaves its `total` argument as it found it, or sets it to what it saved last.
    package func saveWhileLocked(_ total: Int) {
        writeTotal(total)
    }

    /// Runs `body` holding the directory's lock, with the shared total (nil when unknown: a new or damaged lock
    /// file); what `body` leaves in it is written back.
    ///
    /// Its read, run and write-back repeat `withLockUnlessBusy`'s six lines: a private generic helper taking `body` did
    /// not compile under Swift 6 ("returning task-isolated 'body' as a 'sending' result", fix25 and the lead's try).
    package func withLock<T>(_ body: (inout Int?) -> T) -> T {
        threads.withLock { _ in
            while flock(lockDescriptor, LOCK_EX) != 0 && errno == EINTR {}
            defer { _ = flock(lockDescriptor, LOCK_UN) }
            let before = readTotal()
            var total = before
            let result = body(&total)
            if total != before { writeTotal(total) }
            return result
        }
    }

    /// Whether the process that named its temporaries `instance` still runs (holds its instance lock).
    package func isAlive(instance other: String) -> Bool {
        guard other != instance else { return true }
        let path = directory + "/" + Self.instancePrefix + other
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
            // Nobody holds it: its process is gone, and so is the reason to keep the file.
            unlink(path)
            return false
        }
        return errno == EWOULDBLOCK
    }

    /// The instance id in a temporary file's name (`<64 hex>.tmp-<id>-<n>`), if it is one.
    package static func instance(ofTemporary name: String) -> String? {
        let parts = name.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[1].hasPrefix("tmp-") else { return nil }
        return parts[1].dropFirst(4).split(separator: "-", maxSplits: 1).first.map(String.init)
    }

    private func readTotal() -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(lockDescriptor, $0.baseAddress, 32, 0) }
        guard count > 0 else { return nil }
        return Int(String(decoding: buffer.prefix(count), as: UTF8.self).trimmingNewline())
    }

    private func writeTotal(_ total: Int?) {
        let text = Array((total.map { String(max(0, $0)) } ?? "").utf8) + [0x0A]
        _ = ftruncate(lockDescriptor, 0)
        _ = text.withUnsafeBytes { pwrite(lockDescriptor, $0.baseAddress, text.count, 0) }
    }
}

extension CacheFileSystem.Failure {
    /// A write given up because a lock of the directory (`lock`, its file's path) was held past
    /// `CacheDirectoryLedger.busyWait` (`withLockUnlessBusy`). Not an error that disables the store.
    package static func lockBusy(_ lock: String) -> Self {
        Self(call: "flock", path: lock, errno: EWOULDBLOCK)
    }

    package var isLockBusy: Bool { call == "flock" && errno == EWOULDBLOCK }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }

    fileprivate func trimmingNewline() -> String {
        hasSuffix("\n") ? String(dropLast()) : self
    }
}

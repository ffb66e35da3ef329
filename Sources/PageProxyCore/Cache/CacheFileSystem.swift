import CLinux
import Glibc

/// The few file-system calls the disk cache makes, each retrying `EINTR` and throwing the call's name and `errno`.
///
/// Files are created `0600` and directories `0700`: cached pages may hold data fetched with a user's credentials.
package enum CacheFileSystem {
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package let call: String
        package let path: String
        package let errno: Int32

        package var description: String { "\(call) \(path): \(String(cString: strerror(errno)))" }

        /// Whether the failure means the directory cannot hold the cache (read-only, forbidden, gone). A full volume
        /// does not (`meansNoSpace`): the store evicts to make room, and skips what still does not fit.
        package var disablesCache: Bool {
            [EROFS, EACCES, EPERM, ENOENT, ENOTDIR].contains(errno)
        }

        /// Whether the volume (or the user's quota) had no space for the write.
        package var meansNoSpace: Bool { errno == ENOSPC || errno == EDQUOT }

        /// Whether a `.pageCacheOnly` read stopped because the bytes would have to come from the disk.
        package var wouldBlock: Bool { errno == EAGAIN }
    }

    /// How long a read may wait.
    package enum ReadWait: Sendable {
        /// As long as the disk takes.
        case mayWaitForDisk
        /// Not at all: only bytes already in the kernel's page cache are read; others throw a failure whose
        /// `wouldBlock` is true (a thread of the cooperative pool must not wait for a disk). Where the file system
        /// cannot tell (`RWF_NOWAIT` unsupported), the read waits as `mayWaitForDisk` would.
        case pageCacheOnly
    }

    /// How many bytes are read first, before the file is cut in two: a cache entry's prefix and header fit.
    static let firstReadBytes = 4096

    /// The largest file read with one call on a guessed head length (`readInOne`), before its first bytes are seen: a
    /// larger one is read in two, its size checked against what its first bytes say (`fileLength`) before the rest.
    static let oneReadMaxBytes = 1 << 24

    /// A whole file's bytes and its inode, or nil when it does not exist.
    package static func read(_ path: String, wait: ReadWait = .mayWaitForDisk) throws(Failure) -> (bytes: [UInt8], inode: UInt64)? {
        try read(path, headLength: { _ in nil }, wait: wait).map { ($0.head, $0.inode) }
    }

    /// A whole file's bytes cut in two, `head` and `tail`, and its inode; nil when it does not exist.
    ///
    /// `headLength` is shown the file's first bytes (up to `firstReadBytes`) and says where the head ends (nil: the
    /// whole file is the head). The tail (a cache entry's body) is read straight into an array of its own, so that
    /// it need not be copied out of the file's (issue 13: read-back after a restart). A file that shrank while it
    /// was read comes back short. With `touch`, the file's times are set to now through the open descriptor, unless
    /// they were set less than `touchResolution` ago (see `wasTouchedRecently`).
    ///
    /// With `guessedHeadLength` (the length of the last head read: the entries of one route have heads of one
    /// length), the file is read with one call, head and tail each into its own array, and `headLength` is shown the
    /// guessed head: when it confirms the guess, that is the read (issue 13: one `pread` of the first 4 KiB, a copy of
    /// the body's first bytes out of it, and a second `pread`, for every entry). Otherwise it is read as without.
    ///
    /// With `holding`, the descriptor is kept open past the read when the budget has room (`file`: the tail starts at
    /// its `bodyOffset`), so that the tail can be sent from the file (issue 13, eighth pass); otherwise it is closed.
    ///
    /// With `directory` (a descriptor of a directory), `path` is relative to it (`EntryDirectory`).
    ///
    /// With `fileLength` (shown the first bytes, it says how long the file should be), a file of another size is read
    /// no further than its first bytes: the head comes back cut short, which the caller's checks reject as corrupt.
    package static func read(
        _ path: String, in directory: Int32 = AT_FDCWD, headLength: (UnsafeRawBufferPointer) -> Int?,
        fileLength: (UnsafeRawBufferPointer) -> Int? = { _ in nil }, guessedHeadLength: Int? = nil,
        touch: Bool = false, wait: ReadWait = .mayWaitForDisk, holding budget: HeldEntryFileBudget? = nil,
        onChanged: (@Sendable (_ inode: UInt64) -> Void)? = nil
    ) throws(Failure) -> (head: [UInt8], tail: [UInt8], inode: UInt64, file: HeldEntryFile?)? {
        guard let (fd, opened) = try openForReading(path, in: directory) else { return nil }
        var info = opened
        var held: HeldEntryFile?
        defer { if held == nil { close(fd) } }
        touchIfDue(fd, &info, touch: touch)
        let size = Int(info.st_size)
        var readError: Int32 = 0
        var file = guessedHeadLength.flatMap { guess in
            size <= oneReadMaxBytes ? readInOne(fd, size: size, guessedHeadLength: guess, headLength: headLength, wait: wait, error: &readError) : nil
        }
        if file == nil, readError == 0 {
            file = readInTwo(fd, size: size, headLength: headLength, fileLength: fileLength, wait: wait, error: &readError)
        }
        guard readError == 0, let (head, tail) = file else { throw Failure(call: "read", path: path, errno: readError) }
        if let budget { held = HeldEntryFile(descriptor: fd, bodyOffset: head.count, budget: budget, stamp: .init(info), onChanged: onChanged) }
        return (head, tail, UInt64(info.st_ino), held)
    }

    /// A file read through the calling thread's scratch buffer (`ThreadScratch`): its head as an array, where
    /// `headLength` (shown its first bytes) says it ends, and its body (the rest) hashed with XXH64 as it passes, kept
    /// in an array only when `keepsBody` (shown the head and the body's length) says so (issue 13, fourteenth pass: a
    /// body sent from its file need not be in memory to be checked). The descriptor is held when `budget` has room.
    ///
    /// `bodyRead` is how many body bytes the file gave (fewer than its size said when it shrank meanwhile: the caller's
    /// length check rejects it). Nil when the file does not exist.
    package static func readHashingBody(
        _ path: String, in directory: Int32 = AT_FDCWD, headLength: (UnsafeRawBufferPointer) -> Int?,
        fileLength: (UnsafeRawBufferPointer) -> Int? = { _ in nil }, touch: Bool = false,
        wait: ReadWait = .mayWaitForDisk, holding budget: HeldEntryFileBudget, onChanged: (@Sendable (_ inode: UInt64) -> Void)? = nil,
        keepsBody: (_ head: [UInt8], _ bodyLength: Int) -> Bool
    ) throws(Failure) -> (head: [UInt8], body: [UInt8]?, bodyRead: Int, bodyHash: UInt64, inode: UInt64, file: HeldEntryFile?)? {
        guard let (fd, opened) = try openForReading(path, in: directory) else { return nil }
        var info = opened
        touchIfDue(fd, &info, touch: touch)
        return try ThreadScratch.with { (scratch) throws(Failure) in
            try readHashingBody(
                fd, info: info, path: path, through: scratch, headLength: headLength, fileLength: fileLength, wait: wait, holding: budget,
                onChanged: onChanged, keepsBody: keepsBody)
        }
    }

    /// `readHashingBody` of the open `fd` through `scratch`; closes `fd` unless it is held.
    private static func readHashingBody(
        _ fd: Int32, info: stat, path: String, through scratch: UnsafeMutableRawBufferPointer, headLength: (UnsafeRawBufferPointer) -> Int?,
        fileLength: (UnsafeRawBufferPointer) -> Int?, wait: ReadWait, holding budget: HeldEntryFileBudget, onChanged: (@Sendable (_ inode: UInt64) -> Void)?,
        keepsBody: (_ head: [UInt8], _ bodyLength: Int) -> Bool
    ) throws(Failure) -> (head: [UInt8], body: [UInt8]?, bodyRead: Int, bodyHash: UInt64, inode: UInt64, file: HeldEntryFile?) {
        let base = scratch.baseAddress.unsafelyUnwrapped
        var held: HeldEntryFile?
        defer { if held == nil { close(fd) } }
        let size = Int(info.st_size)
        var offset = 0
        var readError: Int32 = 0
        // The scratch filled from the file (a ~21 KB entry whole, in one read), or up to its end; how many bytes came.
        func fill() -> Int {
            var filled = 0
            while filled < scratch.count, offset < size {
                let count = retrying {
                    readChunk(fd, base.assumingMemoryBound(to: UInt8.self) + filled, min(scratch.count - filled, size - offset), at: offset, wait: wait)
                }
                if count < 0 { readError = errno }
                if count <= 0 { break }
                filled += count
                offset += count
            }
            return filled
        }
        var filled = fill()
        let first = UnsafeRawBufferPointer(rebasing: scratch[..<filled])
        let cut = min(max(headLength(first) ?? size, 0), size)
        // A file of another size than its first bytes say is corrupt: none of its body is read (attack15 L2).
        let sizeAsSaid = fileLength(first).map { $0 == size } ?? true
        var head = [UInt8](UnsafeRawBufferPointer(rebasing: scratch[..<min(cut, filled)]))
        // Where the body starts in what the scratch holds now.
        var bodyStart = head.count
        // A head longer than the scratch (a page with thousands of stored items): the rest of it read into the array.
        while sizeAsSaid, head.count < cut, readError == 0, offset < size {
            filled = fill()
            if filled == 0 { break }  // shrank meanwhile: a head cut short, which the caller's checks reject
            let taken = min(cut - head.count, filled)
            head += UnsafeRawBufferPointer(rebasing: scratch[..<taken])
            bodyStart = taken
        }
        guard readError == 0 else { throw Failure(call: "read", path: path, errno: readError) }
        let bodyLength = max(0, size - cut)
        var body: [UInt8]? = keepsBody(head, bodyLength) ? [] : nil
        if sizeAsSaid { body?.reserveCapacity(bodyLength) }
        var hash = XXHash64.Streaming()
        var bodyRead = 0
        // A file shorter than its head has no body here: the caller's length checks reject it.
        while sizeAsSaid, head.count == cut {
            let piece = UnsafeRawBufferPointer(rebasing: scratch[bodyStart..<filled])
            hash.update(piece)
            body?.append(contentsOf: piece)
            bodyRead += piece.count
            guard offset < size else { break }
            filled = fill()
            bodyStart = 0
            if readError != 0 || filled == 0 { break }  // 0: shrank meanwhile (the caller's length check rejects it)
        }
        guard readError == 0 else { throw Failure(call: "read", path: path, errno: readError) }
        held = HeldEntryFile(descriptor: fd, bodyOffset: cut, budget: budget, stamp: .init(info), onChanged: onChanged)
        return (head, body, bodyRead, hash.finalize(), UInt64(info.st_ino), held)
    }

    /// Refreshes the file's times through `fd` when `touch` asks and they are not recent (`wasTouchedRecently`), before
    /// its bytes are read, and takes `info` again: the times a held file's `stamp` is compared with are those after the
    /// touch (attack13 L1), and no path is looked up again (the LRU order that survives a restart). Copies of the file
    /// held for sending keep up with the touch (`HeldFileStamps`).
    private static func touchIfDue(_ fd: Int32, _ info: inout stat, touch: Bool) {
        guard touch, !wasTouchedRecently(usedAt: lastUse(info) / 1_000_000_000) else { return }
        _ = HeldFileStamps.shared.touch(fd, &info)
    }

    /// `path` (under `directory`) opened read-only without touching its access time, and its `stat`; nil when it does
    /// not exist. Only a regular file is opened (attack13 H1: a FIFO, a device or a directory in an entry's place is no
    /// entry: it throws `EINVAL`), never waiting in `open` and following no symbolic link (`pageproxy_openat_readonly`).
    /// Every entry file is opened here, a page's or an answer's (attack17 H1: an answer's opened otherwise waited
    /// for a FIFO's writer forever). The caller closes the descriptor.
    package static func openForReading(_ path: String, in directory: Int32) throws(Failure) -> (fd: Int32, info: stat)? {
        // Without the access time: with `relatime`, the first read after each touch wrote the inode (4 % of a
        // read-back after a restart, issue 13); the LRU order is the modification time, which `touch` sets.
        var fd = retrying { pageproxy_openat_noatime(directory, path) }
        if fd < 0, errno == EPERM { fd = retrying { pageproxy_openat_readonly(directory, path) } }
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw failure("open", path)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = failure("fstat", path)
            close(fd)
            throw error
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw Failure(call: "open", path: path, errno: EINVAL)
        }
        return (fd, info)
    }

    /// A file of `size` bytes cut where `headLength`, shown its first bytes, says (see `read`).
    /// A file of another size than `fileLength` says comes back as its first bytes, cut short of the head when the
    /// head is longer, and no tail (attack15 L2).
    private static func readInTwo(
        _ fd: Int32, size: Int, headLength: (UnsafeRawBufferPointer) -> Int?, fileLength: (UnsafeRawBufferPointer) -> Int?,
        wait: ReadWait, error: inout Int32
    ) -> (head: [UInt8], tail: [UInt8]) {
        var offset = 0
        let first = readArray(fd, count: min(size, firstReadBytes), startingWith: [], offset: &offset, wait: wait, error: &error)
        let cut = min(max(first.withUnsafeBytes(headLength) ?? size, 0), size)
        if let said = first.withUnsafeBytes(fileLength), said != size { return (Array(first[..<min(cut, first.count)]), []) }
        if cut <= first.count {
            return (Array(first[..<cut]), readArray(fd, count: size - cut, startingWith: first[cut...], offset: &offset, wait: wait, error: &error))
        }
        let head = readArray(fd, count: cut, startingWith: first[...], offset: &offset, wait: wait, error: &error)
        return (head, readArray(fd, count: size - cut, startingWith: [], offset: &offset, wait: wait, error: &error))
    }

    /// A file of `size` bytes read with one call, cut after `guessedHeadLength` bytes when `headLength`, shown them,
    /// confirms the cut, and where it says otherwise (one copy). Nil when it cannot say, or the read came back short or
    /// failed (the caller reads the file in two), with `error` set only when the bytes would have to come from the disk
    /// (`.pageCacheOnly`).
    private static func readInOne(
        _ fd: Int32, size: Int, guessedHeadLength guess: Int, headLength: (UnsafeRawBufferPointer) -> Int?, wait: ReadWait,
        error: inout Int32
    ) -> (head: [UInt8], tail: [UInt8])? {
        guard guess > 0, guess < size else { return nil }
        var complete = false
        var head = [UInt8](repeating: 0, count: guess)
        let tail = [UInt8](unsafeUninitializedCapacity: size - guess) { tailBuffer, initialized in
            // Before the read writes it: the heap it is in may then fault in huge pages (`pageproxy_advise_huge_heap`).
            _ = pageproxy_advise_huge_heap(tailBuffer.baseAddress, size - guess)
            head.withUnsafeMutableBytes { headBuffer in
                func read(nowait: Bool) -> Int {
                    retrying { pageproxy_pread_two(fd, headBuffer.baseAddress, guess, tailBuffer.baseAddress, size - guess, 0, nowait ? 1 : 0) }
                }
                var count = read(nowait: wait == .pageCacheOnly)
                // EOPNOTSUPP, ENOSYS, EINVAL: this file system or kernel cannot read without waiting; read as usual.
                if count < 0, wait == .pageCacheOnly, [EOPNOTSUPP, ENOSYS, EINVAL].contains(errno) { count = read(nowait: false) }
                if count < 0, errno == EAGAIN, wait == .pageCacheOnly { error = EAGAIN }
                complete = count == size
            }
            initialized = complete ? size - guess : 0
        }
        guard complete, let cut = head.withUnsafeBytes(headLength), cut >= 0, cut <= size else { return nil }
        if cut == guess { return (head, tail) }
        // A wrong guess (another route's entries, stored headers of another length): the whole file is here, in two
        // arrays; cut it where its head really ends with one copy, not a second read of the file (review: with the
        // guess shared by every route, a read in two after each wrong guess cost more than no guess).
        if cut < guess {
            var body = [UInt8]()
            body.reserveCapacity(size - cut)
            body += head[cut...]
            body += tail
            head.removeSubrange(cut...)
            return (head, body)
        }
        head += tail[..<(cut - guess)]
        return (head, Array(tail[(cut - guess)...]))
    }

    /// An array of up to `count` bytes: `prefix`, then what `fd` gives from `offset` (moved past what it read) until
    /// `count` or the end of the file. Read straight into uninitialized storage: no zero-filling of a buffer about to
    /// be overwritten.
    private static func readArray(
        _ fd: Int32, count: Int, startingWith prefix: ArraySlice<UInt8>, offset: inout Int, wait: ReadWait, error: inout Int32
    ) -> [UInt8] {
        guard count > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            _ = pageproxy_advise_huge_heap(base, count)
            var done = min(prefix.count, count)
            prefix.prefix(done).withUnsafeBufferPointer { source in
                if let from = source.baseAddress { base.update(from: from, count: done) }
            }
            while done < count, error == 0 {
                let read = retrying { readChunk(fd, base + done, count - done, at: offset, wait: wait) }
                if read < 0 { error = errno }
                if read <= 0 { break }  // 0: shrank meanwhile; the caller's length checks reject it
                done += read
                offset += read
            }
            initialized = done
        }
    }

    /// Writes `bytes` to `temporary` (created exclusively, mode 0600), then renames it to `path`.
    ///
    /// No fsync: after a power loss the renamed file may be empty or torn, which the entry's length and checksum
    /// catch on the next read. A process crash (kill -9) cannot tear it: the rename happens only after every byte
    /// is written, and a leftover temporary file is removed at the next start.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, temporary: String) throws(Failure) {
        try writeTemporary(bytes, temporary)
        try moveIntoPlace(temporary, path)
    }

    /// Writes `bytes` to the new file `temporary` (removed again if that fails).
    /// - Parameter synced: `fsync` it before it is closed (an answer's entry, `AnswerEntries`: its body is not hashed
    ///   when it is read, so its bytes must be on the disk before its name is).
    package static func writeTemporary(_ bytes: [UInt8], _ temporary: String, synced: Bool = false) throws(Failure) {
        let fd = retrying { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw failure("open", temporary) }
        var done = 0
        while done < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                retrying { write(fd, buffer.baseAddress.unsafelyUnwrapped + done, bytes.count - done) }
            }
            if count <= 0 {
                let error = failure("write", temporary)
                close(fd)
                unlink(temporary)
                throw error
            }
            done += count
        }
        guard !synced || retrying({ fsync(fd) }) == 0 else {
            let error = failure("fsync", temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        guard close(fd) == 0 else {
            let error = failure("close", temporary)
            unlink(temporary)
            throw error
        }
    }

    /// Renames `temporary` over `path` in one step (removing `temporary` if that fails).
    package static func moveIntoPlace(_ temporary: String, _ path: String) throws(Failure) {
        guard rename(temporary, path) == 0 else {
            let error = failure("rename", path)
            unlink(temporary)
            throw error
        }
    }

    /// Creates `path` (mode 0700) and its missing parents; an existing directory is fine.
    package static func makeDirectory(_ path: String) throws(Failure) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { throw failure("mkdir", prefix) }
            prefix += "/"
        }
        var info = stat()
        guard stat(path, &info) == 0 else { throw failure("stat", path) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw Failure(call: "mkdir", path: path, errno: ENOTDIR) }
    }

    /// Whether `path` is a directory itself, not a symbolic link to one (`lstat`): a fan-out folder of the cache that is
    /// a link leads outside it, where nothing is read, written or removed (attack15 L1).
    package static func isOwnDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether something that is no directory of its own (a symbolic link, a file) is at `path` (`lstat`); false when
    /// nothing is (a folder about to be made).
    package static func isForeignFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT != S_IFDIR
    }

    /// Removes `path`.
    package static func remove(_ path: String) {
        unlink(path)
    }

    /// Removes the directory `path` when it is empty (`rmdir` refuses any other); true when it did.
    @discardableResult
    package static func removeDirectoryIfEmpty(_ path: String) -> Bool {
        rmdir(path) == 0
    }

    /// Puts `temporary` in `path`'s place in one step. Returns the size of the version it replaced (0: none) and
    /// where that version now is (for the caller to unlink; nil: none).
    ///
    /// The swap (`renameat2` with `RENAME_EXCHANGE`) means a reader never finds the place empty, and the size is that
    /// of exactly the file replaced, even when another process takes (`detach`es) the old version at that moment.
    /// Where the file system cannot swap, the old version is detached to `aside` first: the place is then empty for
    /// the span of one `rename` (a reader in between misses).
    package static func replace(_ path: String, with temporary: String, aside: String) throws(Failure) -> (replaced: Int, leftAt: String?) {
        if pageproxy_rename_exchange(temporary, path) == 0 {
            return (fileInfo(temporary)?.size ?? 0, temporary)
        }
        switch errno {
        case ENOENT:
            try moveIntoPlace(temporary, path)
            return (0, nil)
        case EINVAL, ENOSYS, EOPNOTSUPP:
            let replaced = detach(path, to: aside)
            try moveIntoPlace(temporary, path)
            return (replaced ?? 0, replaced == nil ? nil : aside)
        default:
            let error = failure("renameat2", path)
            unlink(temporary)
            throw error
        }
    }

    /// Moves the file at `path` aside to `aside` (a name no one else uses) and returns its size, or nil when there
    /// is none. The `rename` is atomic: when two callers race to take the same file, exactly one gets it, and it knows
    /// exactly how many bytes it took (a newer version renamed over `path` since it looked is what it takes).
    package static func detach(_ path: String, to aside: String) -> Int? {
        guard rename(path, aside) == 0 else { return nil }
        return fileInfo(aside)?.size ?? 0
    }

    /// Sets a file's access and modification times to now: the LRU order that survives a restart. Copies of the file
    /// held for sending keep up with it (`HeldFileStamps`).
    package static func touch(_ path: String) {
        HeldFileStamps.shared.touch(path)
    }

    /// How fine the LRU order that survives a restart is: a read that would refresh a file's time leaves a time set
    /// less than this long ago as it is. Issue 13: the first hit of each entry after a restart refreshed its file's
    /// time, an inode write (`futimens`, 3–6 % of the first read-back after a restart); the entries a proxy restarted
    /// in a rolling deploy hits first are the ones it wrote or refreshed last, whose times are already that recent.
    package static let touchResolution: Int = 60

    /// Whether `modified` (a file's modification time, in seconds since 1970) is less than `touchResolution` seconds
    /// ago; a time ahead of the clock (the clock was set back) is not recent, so the file is refreshed.
    static func wasTouchedRecently(usedAt used: Int64) -> Bool {
        let now = Int64(time(nil))
        return used <= now && now - used < Int64(touchResolution)
    }

    /// When a file was last used, in nanoseconds since 1970: the later of its access time (which PageProxy's touch
    /// sets, and reads of entries never move) and its modification time (when it was written).
    static func lastUse(_ info: stat) -> Int64 {
        max(Int64(info.st_atim.tv_sec) * 1_000_000_000 + Int64(info.st_atim.tv_nsec), Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// The names in a directory (without "." and ".."), or nil when it cannot be read.
    package static func names(in directory: String) -> [String]? {
        guard let handle = opendir(directory) else { return nil }
        defer { closedir(handle) }
        var names: [String] = []
        while let item = readdir(handle) {
            let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// A file's inode number, or nil.
    package static func inode(_ path: String) -> UInt64? {
        inodeAndSize(path)?.inode
    }

    /// A file's inode number and size, or nil (one `lstat`).
    package static func inodeAndSize(_ path: String) -> (inode: UInt64, size: Int)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_ino), Int(info.st_size))
    }

    /// A regular file's size, when it was last used (`lastUse`) and its inode (the version the index knows it by), or nil.
    package static func fileInfo(_ path: String) -> (size: Int, used: Int64, inode: UInt64)? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return (Int(info.st_size), lastUse(info), UInt64(info.st_ino))
    }

    /// One `pread` of `count` bytes at `offset`; with `.pageCacheOnly`, one that fails with `EAGAIN` rather than wait.
    private static func readChunk(_ fd: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int, at offset: Int, wait: ReadWait) -> Int {
        if wait == .pageCacheOnly {
            let result = pageproxy_pread_nowait(fd, buffer, count, off_t(offset))
            // EOPNOTSUPP, ENOSYS, EINVAL: this file system or kernel cannot read without waiting; read as usual.
            guard result < 0, [EOPNOTSUPP, ENOSYS, EINVAL].contains(errno) else { return result }
        }
        return pread(fd, buffer, count, off_t(offset))
    }

    private static func retrying(_ call: () -> Int32) -> Int32 {
        var result = call()
        while result < 0 && errno == EINTR { result = call() }
        return result
    }

    private static func retrying(_ call: () -> Int) -> Int {
        var result = call()
        while result < 0 && errno == EINTR { result = call() }
        return result
    }

    private static func failure(_ call: String, _ path: String) -> Failure {
        Failure(call: call, path: path, errno: errno)
    }
}

import CLinux
import Glibc

/// Reads of a whole file, or of one cut in two where its head ends: opened without following a link or moving its
/// access time, read with one call when the head length is guessed, and without waiting for the disk when asked.
extension CacheFileSystem {
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

    /// One `pread` of `count` bytes at `offset`; with `.pageCacheOnly`, one that fails with `EAGAIN` rather than wait.
    static func readChunk(_ fd: Int32, _ buffer: UnsafeMutablePointer<UInt8>, _ count: Int, at offset: Int, wait: ReadWait) -> Int {
        if wait == .pageCacheOnly {
            let result = pageproxy_pread_nowait(fd, buffer, count, off_t(offset))
            // EOPNOTSUPP, ENOSYS, EINVAL: this file system or kernel cannot read without waiting; read as usual.
            guard result < 0, [EOPNOTSUPP, ENOSYS, EINVAL].contains(errno) else { return result }
        }
        return pread(fd, buffer, count, off_t(offset))
    }
}

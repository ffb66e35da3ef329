#if canImport(Glibc)
import Glibc
#endif

/// A nameless temporary file that a merged answer is appended to and then read back in chunks.
///
/// The file never has a name another process could open: it is made with `O_TMPFILE`, or, where the file system
/// does not support that, created with a random name (mode 0600, `O_EXCL`) and unlinked at once. Its space is
/// released when the descriptor closes, so a crash or `kill -9` leaves nothing behind. The descriptor closes on
/// `close()` or, on any path that forgets to, when the value is released.
///
/// A write that fails moves the spool to the next directory it may use, with what it held (attack3 F6: on a full
/// cache volume the file is made, since making it takes no data block, but its first write fails with `ENOSPC`,
/// while `/tmp` had room).
package final class SpoolFile {
    private var fd: Int32
    /// Bytes appended so far: the file's length.
    package private(set) var count = 0
    /// The directories to move to, in order, when a write fails here.
    private var fallbacks: [String]
    /// While a directory is left to move to, the free space a write must leave on this file's volume: a spool does
    /// not take the last of it (the cache directory's volume is sized for the cache, whose writes would then fail and
    /// disable it: attack3 F6). The last directory takes what it can.
    package var reserveBytes = SpoolFile.defaultReserveBytes

    /// 64 MiB.
    package static let defaultReserveBytes = 64 << 20

    /// Wraps an open descriptor that the spool then owns (tests use `/dev/full` to stand for a full disk), moving to
    /// the first of `fallbacks` that takes the bytes when a write fails.
    package init(descriptor: Int32, fallbacks: [String] = []) {
        fd = descriptor
        self.fallbacks = fallbacks
    }

    deinit {
        close()
    }

    /// Creates a spool in the first of `directories` where a file can be made; the ones after it are where the
    /// spool moves when a write fails.
    /// - Throws: `SpoolError.createFailed` naming the last directory tried and its `errno`.
    package static func create(inFirstOf directories: [String]) throws(SpoolError) -> SpoolFile {
        var failure = SpoolError.createFailed(directory: directories.last ?? "", errno: ENOENT)
        for (index, directory) in directories.enumerated() {
            do {
                let spool = try create(in: directory)
                spool.fallbacks = Array(directories[(index + 1)...])
                return spool
            } catch {
                failure = error
            }
        }
        throw failure
    }

    /// Creates a spool in `directory`.
    package static func create(in directory: String) throws(SpoolError) -> SpoolFile {
        // O_TMPFILE is a macro Glibc's Swift module does not export: __O_TMPFILE | O_DIRECTORY (x86_64, arm64).
        let tmpfile: Int32 = 0o20000000 | O_DIRECTORY
        var fd = open(directory, tmpfile | O_RDWR | O_APPEND | O_CLOEXEC, 0o600)
        if fd < 0 {
            let code = errno
            // Only "this file system cannot" falls back to a named file; a missing or unwritable directory fails.
            guard code == EOPNOTSUPP || code == EISDIR || code == EINVAL else {
                throw .createFailed(directory: directory, errno: code)
            }
            fd = try createUnlinked(in: directory)
        }
        guard DescriptorReserve.admitsFile(fd) else {
            Glibc.close(fd)
            throw .createFailed(directory: directory, errno: EMFILE)
        }
        return SpoolFile(descriptor: fd)
    }

    /// Appends every byte of `bytes`; when a write fails, or would leave less than `reserveBytes` free while a
    /// fallback is left, moves to the next fallback directory and appends there.
    /// - Throws: `SpoolError.writeFailed` (for example `ENOSPC` on a full disk) of the write that failed in the last
    ///   directory the spool was in, when no fallback is left (fallbacks where no file could be made are skipped);
    ///   the spool is then unusable.
    package func append(_ bytes: [UInt8]) throws(SpoolError) {
        guard fd >= 0 else { throw .writeFailed(errno: EBADF) }
        while true {
            do throws(SpoolError) {
                if !fallbacks.isEmpty, let free = Self.freeBytes(fd) {
                    let (needed, overflow) = bytes.count.addingReportingOverflow(reserveBytes)
                    if overflow || free < needed { throw .writeFailed(errno: ENOSPC) }
                }
                try Self.write(bytes[...], to: fd)
                count += bytes.count
                return
            } catch {
                // Bytes of `bytes` a failed write left here are not copied: the next file gets `count` and all of them.
                try move(after: error)
            }
        }
    }

    /// The bytes an unprivileged writer may still use on `fd`'s volume; nil when unknown.
    private static func freeBytes(_ fd: Int32) -> Int? {
        var info = statvfs()
        guard fstatvfs(fd, &info) == 0 else { return nil }
        let (free, overflow) = Int(clamping: info.f_bavail).multipliedReportingOverflow(by: Int(clamping: info.f_frsize))
        return overflow ? Int.max : free
    }

    /// Writes every byte of `bytes` to `fd`.
    private static func write(_ bytes: ArraySlice<UInt8>, to fd: Int32) throws(SpoolError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                Glibc.write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .writeFailed(errno: errno)
            }
            // A regular file never takes zero bytes of a non-empty write; a device that does is as good as full.
            guard written > 0 else { throw .writeFailed(errno: ENOSPC) }
            offset += written
        }
    }

    /// Moves the spool to the first fallback directory where a file can be made and takes the `count` bytes held,
    /// read back from this one; the file here is closed (its space freed). Rethrows `failure` when none is left.
    private func move(after failure: SpoolError) throws(SpoolError) {
        while !fallbacks.isEmpty {
            let directory = fallbacks.removeFirst()
            guard let next = try? Self.create(in: directory) else { continue }
            do {
                var offset = 0
                while offset < count {
                    let chunk = try read(at: offset, maxBytes: Self.moveChunkBytes)
                    try Self.write(chunk[...], to: next.fd)
                    offset += chunk.count
                }
            } catch {
                // A failed read here cannot be helped by another directory; a failed write there may be.
                next.close()
                if case .readFailed = error { throw failure }
                continue
            }
            _ = Glibc.close(fd)
            fd = next.fd
            next.fd = -1
            return
        }
        throw failure
    }

    /// The bytes read back and written at a time when the spool moves.
    static let moveChunkBytes = 1 << 20

    /// Up to `maxBytes` bytes from `offset`; empty at the end of the file.
    /// - Throws: `SpoolError.readFailed`.
    package func read(at offset: Int, maxBytes: Int) throws(SpoolError) -> [UInt8] {
        guard fd >= 0 else { throw .readFailed(errno: EBADF) }
        let wanted = max(0, min(maxBytes, count - offset))
        guard wanted > 0 else { return [] }
        var chunk = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let got = chunk.withUnsafeMutableBytes { raw in
                pread(fd, raw.baseAddress.map { $0 + filled }, wanted - filled, off_t(offset + filled))
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw .readFailed(errno: errno)
            }
            // The file is shorter than what was appended: something truncated it.
            guard got > 0 else { throw .readFailed(errno: EIO) }
            filled += got
        }
        return chunk
    }

    /// The whole file in chunks of at most `chunkSize` bytes, read as they are asked for.
    package func chunks(of chunkSize: Int) -> Chunks {
        Chunks(spool: self, chunkSize: max(1, chunkSize))
    }

    /// Releases the descriptor and with it the file's space; safe to call more than once.
    package func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }

    /// Reads a spool front to back, one bounded chunk per call.
    package struct Chunks {
        let spool: SpoolFile
        let chunkSize: Int
        private(set) var offset = 0

        init(spool: SpoolFile, chunkSize: Int) {
            self.spool = spool
            self.chunkSize = chunkSize
        }

        /// The next chunk, nil at the end.
        package mutating func next() throws(SpoolError) -> [UInt8]? {
            let chunk = try spool.read(at: offset, maxBytes: chunkSize)
            guard !chunk.isEmpty else { return nil }
            offset += chunk.count
            return chunk
        }
    }

    /// `O_EXCL` with a random name, then unlinked before anything is written.
    private static func createUnlinked(in directory: String) throws(SpoolError) -> Int32 {
        for _ in 0..<8 {
            let name = "pageproxy-spool-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            let fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_APPEND | O_CLOEXEC, 0o600)
            if fd < 0 {
                if errno == EEXIST { continue }
                throw .createFailed(directory: directory, errno: errno)
            }
            unlink(path)
            return fd
        }
        throw .createFailed(directory: directory, errno: EEXIST)
    }
}

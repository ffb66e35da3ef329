import Glibc

/// Reads through the calling thread's scratch buffer that hash an entry's body as it passes, keeping it only when
/// asked (issue 13, fourteenth pass).
extension CacheFileSystem {
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
}

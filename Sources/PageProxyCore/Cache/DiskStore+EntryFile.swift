import Synchronization

/// Reading an entry file: head and body, or the body hashed through a reused buffer and left in the held file.
extension DiskStore {
    /// An entry file as read: its head and body, its inode, its descriptor when held, and the directory it was read
    /// under (the one to check its inode in again).
    struct EntryFile {
        var head: [UInt8]
        var tail: [UInt8]
        var inode: UInt64
        var file: HeldEntryFile?
        var directory: EntryDirectory
        /// Read through a reused buffer (`CacheFileSystem.readHashingBody`): the head decoded as it was read, and the
        /// body's length and XXH64 as read (`tail` holds the body only when it was kept).
        var hashed: Hashed?

        struct Hashed {
            var head: Result<CacheEntry, CacheEntryFormat.Invalid>
            var bodyLength: Int
            var bodyRead: Int
            var bodyHash: UInt64
            var keptBody: Bool
        }

        /// The entry, verified, with its held file; its body left in that file when it was not kept
        /// (`CacheEntry.bodyInFile`). Nil when it was not kept and the file could not be held (the budget filled
        /// meanwhile): the caller reads it again as a whole.
        func entry(for key: CacheKey) throws(CacheEntryFormat.Invalid) -> CacheEntry? {
            guard let hashed else {
                var entry = try CacheEntryFormat.decode(head: head, body: tail, key: key)
                entry.file = file
                return entry
            }
            var entry = try hashed.head.get()
            guard hashed.bodyRead == hashed.bodyLength else { throw .lengthMismatch }
            guard hashed.bodyHash == entry.bodyChecksum else { throw .checksumMismatch }
            if hashed.keptBody {
                entry.body = tail
            } else {
                guard let file else { return nil }
                entry.bodyInFile = BodyInFile(file: file, length: hashed.bodyLength, checksum: entry.bodyChecksum)
            }
            entry.file = file
            return entry
        }
    }

    /// An entry file read in two parts, head and body (see `CacheFileSystem.read`), guessing that its head is as long
    /// as the last one read: the entries of a route have heads of one length, so most are read with one call.
    /// With `holdsFile`, the file stays open for sending from while `heldFiles` has room (`HeldEntryFile`).
    /// Read under the held directory (`EntryDirectory`), compared first with the one at the store's path when that is
    /// due; a file missing there is looked for again under the directory now at the path, if that is another.
    ///
    /// With `leavesBodyFor` (and `holdsFile`) and room in the budget, the file is read through the thread's reused
    /// buffer, its body hashed as it passes and kept only when the entry's stored scan is not for that signature
    /// (`EntryFile.hashed`; issue 13, fourteenth pass).
    func readEntryFile(
        _ key: CacheKey, in held: HeldDirectory, touch: Bool, wait: CacheFileSystem.ReadWait, holdsFile: Bool = false,
        leavesBodyFor signature: UInt64? = nil
    ) throws(CacheFileSystem.Failure) -> EntryFile? {
        var directory = held.checkDue && !held.directory.isCurrent ? replaceEntryDirectory(held.directory, keeping: key) : held.directory
        let guess = lastHeadLength.load(ordering: .relaxed)
        let onChanged = holdsFile ? changedInPlace(key) : nil
        func read(_ directory: EntryDirectory) throws(CacheFileSystem.Failure) -> EntryFile? {
            if holdsFile, let signature, heldFiles.hasRoom {
                return try readHashing(key, in: directory, touch: touch, wait: wait, leavingBodyFor: signature, onChanged: onChanged)
            }
            let file = try directory.locate(key.relativePath) { (fd, path) throws(CacheFileSystem.Failure) in
                try CacheFileSystem.read(
                    path, in: fd, headLength: CacheEntryFormat.headLength(of:), fileLength: CacheEntryFormat.fileLength(of:),
                    guessedHeadLength: guess == 0 ? nil : guess, touch: touch,
                    wait: wait, holding: holdsFile ? heldFiles : nil, onChanged: onChanged)
            }
            return file.map { EntryFile(head: $0.head, tail: $0.tail, inode: $0.inode, file: $0.file, directory: directory) }
        }
        var file = try read(directory)
        if file == nil, !held.checkDue, !directory.isCurrent {
            directory = replaceEntryDirectory(directory, keeping: key)
            file = try read(directory)
        }
        if let file, file.head.count != guess { lastHeadLength.store(file.head.count, ordering: .relaxed) }
        return file
    }

    /// `key`'s file read under `directory` through the thread's reused buffer (`readEntryFile` with `leavesBodyFor`).
    private func readHashing(
        _ key: CacheKey, in directory: EntryDirectory, touch: Bool, wait: CacheFileSystem.ReadWait, leavingBodyFor signature: UInt64,
        onChanged: (@Sendable (UInt64) -> Void)?
    ) throws(CacheFileSystem.Failure) -> EntryFile? {
        var head: Result<CacheEntry, CacheEntryFormat.Invalid> = .failure(.tooShort)
        var expectedLength = 0
        let read = try directory.locate(key.relativePath) { (fd, path) throws(CacheFileSystem.Failure) in
            try CacheFileSystem.readHashingBody(
                path, in: fd, headLength: CacheEntryFormat.headLength(of:), fileLength: CacheEntryFormat.fileLength(of:), touch: touch,
                wait: wait, holding: heldFiles, onChanged: onChanged
            ) { bytes, bodyLength in
                expectedLength = bodyLength
                head = Result { () throws(CacheEntryFormat.Invalid) in try CacheEntryFormat.decodeHead(bytes, bodyLength: bodyLength, key: key) }
                // Kept for a walk with other paths (its scan is not stored for them), and when there is no file to
                // leave it in; a corrupt head is a miss either way.
                guard case .success(let entry) = head else { return false }
                return entry.scan?.signature != signature || !heldFiles.hasRoom
            }
        }
        guard let read else { return nil }
        let hashed = EntryFile.Hashed(
            head: head, bodyLength: expectedLength, bodyRead: read.bodyRead, bodyHash: read.bodyHash, keptBody: read.body != nil)
        return EntryFile(head: read.head, tail: read.body ?? [], inode: read.inode, file: read.file, directory: directory, hashed: hashed)
    }
}

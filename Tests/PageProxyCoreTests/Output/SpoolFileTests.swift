import Testing

@testable import PageProxyCore

#if canImport(Glibc)
import Glibc
#endif

/// The temporary file behind a large merged answer: nameless, private, read back in chunks, closed on every path.
@Suite struct SpoolFileTests {
    private static func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    @Test func appendedBytesComeBackInBoundedChunks() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let spool = try SpoolFile.create(in: directory.path)
        let first = Self.bytes(100_000)
        let second = Self.bytes(3)
        try spool.append(first)
        try spool.append([])
        try spool.append(second)
        #expect(spool.count == 100_003)
        var chunks = spool.chunks(of: 4096)
        var readBack: [UInt8] = []
        while let chunk = try chunks.next() {
            #expect(chunk.count <= 4096)
            readBack += chunk
        }
        #expect(readBack == first + second)
        #expect(try spool.read(at: 100_003, maxBytes: 10) == [])
    }

    @Test func theFileHasNoNameAndIsGoneOnceClosed() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let spool = try SpoolFile.create(in: directory.path)
        try spool.append(Self.bytes(10))
        #expect(try directory.entries() == [])
        #expect(directory.openDescriptors() == 1)
        spool.close()
        spool.close()
        #expect(directory.openDescriptors() == 0)
    }

    @Test func aSpoolNobodyClosesIsClosedWhenReleased() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        do {
            let spool = try SpoolFile.create(in: directory.path)
            try spool.append(Self.bytes(10))
            #expect(directory.openDescriptors() == 1)
        }
        #expect(directory.openDescriptors() == 0)
    }

    @Test func theFileIsPrivateToItsOwner() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let spool = try SpoolFile.create(in: directory.path)
        defer { spool.close() }
        let links = directory.openDescriptorNumbers()
        #expect(links.count == 1)
        var info = stat()
        #expect(stat("/proc/self/fd/\(links[0])", &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }

    @Test("a write that fails for lack of space moves the spool to the next directory that takes it (attack3 F6)")
    func aFullDirectoryMovesTheSpoolOn() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        // /dev/full stands for a full volume where the file was made: its writes fail with ENOSPC.
        let spool = SpoolFile(descriptor: open("/dev/full", O_RDWR | O_CLOEXEC), fallbacks: [directory.path + "/missing", directory.path])
        let bytes = Self.bytes(5000)
        try spool.append(bytes)
        #expect(spool.count == 5000)
        #expect(try spool.read(at: 0, maxBytes: 10_000) == bytes)
        #expect(directory.openDescriptors() == 1)
        spool.close()
        #expect(directory.openDescriptors() == 0)
    }

    @Test("a spool made in the first of its directories moves on to the ones after it")
    func theDirectoriesAfterTheFirstAreTheFallbacks() throws {
        let (first, second) = (try SpoolTestDirectory(), try SpoolTestDirectory())
        defer { first.remove(); second.remove() }
        let spool = try SpoolFile.create(inFirstOf: [first.path, second.path])
        // The file made in the first directory now fails every write with ENOSPC, as on a full volume.
        let number = try #require(first.openDescriptorNumbers().first.flatMap { Int32($0) })
        let full = open("/dev/full", O_RDWR | O_CLOEXEC)
        #expect(dup2(full, number) == number)
        _ = Glibc.close(full)
        try spool.append(Self.bytes(4000))
        #expect(try spool.read(at: 0, maxBytes: 4000) == Self.bytes(4000))
        #expect(second.openDescriptors() == 1)
        spool.close()
    }

    @Test("a write that would leave its volume less than the reserve moves on while a directory is left; the last takes it")
    func theReserveIsLeftToTheCache() throws {
        let (first, second) = (try SpoolTestDirectory(), try SpoolTestDirectory())
        defer { first.remove(); second.remove() }
        let spool = try SpoolFile.create(inFirstOf: [first.path, second.path])
        try spool.append(Self.bytes(1000))
        #expect(first.openDescriptors() == 1)
        // No volume has this much free: the spool moves on, with what it held, and stays in the last directory.
        spool.reserveBytes = Int.max / 4
        try spool.append(Self.bytes(2000))
        try spool.append(Self.bytes(3000))
        #expect(first.openDescriptors() == 0)
        #expect(second.openDescriptors() == 1)
        #expect(try spool.read(at: 0, maxBytes: 10_000) == Self.bytes(1000) + Self.bytes(2000) + Self.bytes(3000))
        spool.close()
    }

    @Test("what the spool held moves with it: the next file has every byte, the old one is closed")
    func heldBytesMoveWithTheSpool() throws {
        let (first, second) = (try SpoolTestDirectory(), try SpoolTestDirectory())
        defer { first.remove(); second.remove() }
        let path = first.path + "/spool"
        let descriptor = open(path, O_CREAT | O_RDWR | O_APPEND | O_CLOEXEC, 0o600)
        let spool = SpoolFile(descriptor: descriptor, fallbacks: [second.path])
        let (held, more) = (Self.bytes(300_000), Array(Self.bytes(7000).reversed()))
        try spool.append(held)
        // From now on the first file can be read and not written (the write fails, as on a full volume).
        let readOnly = open(path, O_RDONLY | O_CLOEXEC)
        #expect(dup2(readOnly, descriptor) == descriptor)
        _ = Glibc.close(readOnly)
        try spool.append(more)
        #expect(spool.count == 307_000)
        var chunks = spool.chunks(of: 65_536)
        var readBack: [UInt8] = []
        while let chunk = try chunks.next() { readBack += chunk }
        #expect(readBack == held + more)
        #expect(first.openDescriptors() == 0)
        #expect(second.openDescriptors() == 1)
    }

    @Test("when no directory is left to move to, the write's own failure is the spool's")
    func noDirectoryLeftIsTheWriteFailure() throws {
        let spool = SpoolFile(descriptor: open("/dev/full", O_RDWR | O_CLOEXEC), fallbacks: ["/nonexistent-pageproxy-dir"])
        #expect(throws: SpoolError.writeFailed(errno: ENOSPC)) { try spool.append(Self.bytes(10)) }
        #expect(spool.count == 0)
    }

    @Test func aMissingDirectoryFallsBackToTheNextOne() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let missing = directory.path + "/missing"
        #expect(throws: SpoolError.createFailed(directory: missing, errno: ENOENT)) {
            _ = try SpoolFile.create(in: missing)
        }
        let spool = try SpoolFile.create(inFirstOf: [missing, directory.path])
        #expect(directory.openDescriptors() == 1)
        spool.close()
    }

    @Test func aFullDiskIsAWriteError() throws {
        // /dev/full answers every write with ENOSPC, as a full file system does.
        let fd = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(fd >= 0)
        let spool = SpoolFile(descriptor: fd)
        #expect(throws: SpoolError.writeFailed(errno: ENOSPC)) {
            try spool.append(Self.bytes(10))
        }
        #expect(SpoolError.writeFailed(errno: ENOSPC).description.contains("No space left on device"))
        spool.close()
        #expect(fcntl(fd, F_GETFD) == -1, "the descriptor is released")
    }

    @Test func aClosedSpoolRefusesWork() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let spool = try SpoolFile.create(in: directory.path)
        spool.close()
        #expect(throws: SpoolError.writeFailed(errno: EBADF)) { try spool.append([1]) }
    }
}

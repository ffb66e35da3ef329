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

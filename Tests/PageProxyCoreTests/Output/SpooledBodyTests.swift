import Testing

@testable import PageProxyCore

#if canImport(Glibc)
import Glibc
#endif

/// A merged answer's bytes: memory while small, a temporary file past the threshold, an error past the cap.
@Suite struct SpooledBodyTests {
    private static func page(_ index: Int, size: Int = 1000) -> [UInt8] {
        Array(repeating: UInt8(ascii: "a") + UInt8(index % 26), count: size)
    }

    private static func readAll(_ body: SpooledBody, chunkSize: Int = 700) throws -> [UInt8] {
        var chunks = body.chunks(of: chunkSize)
        var bytes: [UInt8] = []
        while let chunk = try chunks.next() { bytes += chunk }
        return bytes
    }

    /// A body that spools to a file in `directory` past `memoryBytes`.
    private static func spooling(in directory: SpoolTestDirectory, memoryBytes: Int) -> SpooledBody {
        let path = directory.path
        return SpooledBody(limits: SpooledBody.Limits(memoryBytes: memoryBytes, maxBytes: 100_000)) { () throws(SpoolError) in
            try SpoolFile.create(in: path)
        }
    }

    @Test func aSmallBodyStaysInMemory() throws {
        let body = SpooledBody(limits: SpooledBody.Limits(memoryBytes: 10_000, maxBytes: 100_000)) { () throws(SpoolError) in
            Issue.record("a body under the threshold must not open a spool")
            throw .createFailed(directory: "-", errno: EACCES)
        }
        try body.append(Self.page(0))
        try body.append(Self.page(1))
        #expect(!body.isSpooled)
        #expect(body.count == 2000)
        #expect(try Self.readAll(body) == Self.page(0) + Self.page(1))
    }

    @Test("a segment is charged whole as it is reserved: past the allowance, what the budget lends runs out by memory taken, not bytes written")
    func reservedSegmentsAreCharged() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let path = directory.path
        let budget = HeldBytesBudget(capacity: HeldBytesLoan.step)
        let body = SpooledBody(
            limits: SpooledBody.Limits(memoryBytes: 10_000, maxBytes: 1 << 20), openSpool: { () throws(SpoolError) in try SpoolFile.create(in: path) },
            budget: budget)
        try body.append(Self.page(0, size: 10_000))
        try body.append(Self.page(1, size: 190_000))
        #expect(!body.isSpooled, "200 KB in segments filled to the brim: 190 KB borrowed, within one step")
        // One byte more starts a segment of 200 KB (as large as the bytes held so far): 390 KB past the allowance.
        try body.append(Self.page(2, size: 1))
        #expect(body.isSpooled, "200,001 bytes written, but 400 KB of memory: more than the budget lends")
        #expect(budget.availableBytes == HeldBytesLoan.step, "given back as it spooled")
        #expect(try Self.readAll(body) == Self.page(0, size: 10_000) + Self.page(1, size: 190_000) + Self.page(2, size: 1))
    }

    @Test func aLargeBodyMovesToDiskAndReadsBackWhole() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let body = Self.spooling(in: directory, memoryBytes: 2500)
        var expected: [UInt8] = []
        for index in 0..<20 {
            try body.append(Self.page(index))
            expected += Self.page(index)
            #expect(body.isSpooled == (index >= 2), "spooled from the page that passes 2500 bytes")
        }
        #expect(body.count == 20_000)
        #expect(try Self.readAll(body) == expected)
        #expect(directory.openDescriptors() == 1)
        body.discard()
        #expect(directory.openDescriptors() == 0)
    }

    @Test("appending through a closure writes into memory while it fits, then spools, and shows what was added")
    func appendingInPlaceMatchesAppendingArrays() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let body = Self.spooling(in: directory, memoryBytes: 2500)
        var expected: [UInt8] = []
        for index in 0..<6 {
            var shown: [UInt8] = []
            // A bound above what is written: the bound, not the bytes, decides when the body leaves memory.
            try body.append(atMost: 1200) { $0 += Self.page(index) } appended: { shown = Array($0) }
            #expect(shown == Self.page(index))
            expected += Self.page(index)
            #expect(body.isSpooled == (index >= 2), "spooled once the bound no longer fits under 2500 bytes")
        }
        #expect(body.count == 6000)
        #expect(try Self.readAll(body) == expected)
    }

    @Test("an answer growing in memory is never copied: what it holds stays where it was written, in a few segments")
    func aGrowingBodyIsNotCopied() throws {
        let body = SpooledBody(limits: SpooledBody.Limits(memoryBytes: 4 << 20, maxBytes: 8 << 20)) { () throws(SpoolError) in
            Issue.record("a body under the threshold must not open a spool")
            throw .createFailed(directory: "-", errno: EACCES)
        }
        var expected: [UInt8] = []
        var firstByteAddress: UnsafeRawPointer?
        for index in 0..<150 {
            let page = Self.page(index, size: 21_000)
            try body.append(atMost: page.count) { $0 += page } appended: { added in
                if index == 0 { firstByteAddress = added.withUnsafeBytes { $0.baseAddress } }
            }
            expected += page
        }
        try body.append(Array("]".utf8))
        expected += Array("]".utf8)
        var chunks = body.chunks(of: 65_536)
        let first = try #require(try chunks.next())
        #expect(first.withUnsafeBytes { $0.baseAddress } == firstByteAddress, "the first bytes were never moved")
        #expect(body.segmentCount <= 8, "3.15 MB in segments that double up to 1 MiB, not one per page")
        #expect(try Self.readAll(body) == expected)
        #expect(body.inMemory == expected)
        #expect(try body.bytes() == expected)
    }

    @Test func passingTheCapThrowsAndDropsEverything() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let path = directory.path
        let body = SpooledBody(limits: SpooledBody.Limits(memoryBytes: 1000, maxBytes: 5000)) { () throws(SpoolError) in
            try SpoolFile.create(in: path)
        }
        for index in 0..<5 { try body.append(Self.page(index)) }
        #expect(body.count == 5000, "exactly the cap is allowed")
        #expect(throws: SpoolError.tooLarge(limit: 5000)) { try body.append([UInt8(ascii: "]")]) }
        #expect(body.count == 0)
        #expect(!body.isSpooled)
        #expect(directory.openDescriptors() == 0, "the temporary file is closed")
    }

    @Test func aFullDiskThrowsAndDropsEverything() throws {
        let body = SpooledBody(limits: SpooledBody.Limits(memoryBytes: 1000, maxBytes: 100_000)) { () throws(SpoolError) in
            SpoolFile(descriptor: open("/dev/full", O_WRONLY | O_CLOEXEC))
        }
        try body.append(Self.page(0))
        #expect(throws: SpoolError.writeFailed(errno: ENOSPC)) { try body.append(Self.page(1)) }
        #expect(body.count == 0)
        #expect(!body.isSpooled)
    }

    @Test("an answer whose spool fills its volume moves on to the next directory and is sent whole (attack3 F6)")
    func aFullSpoolVolumeFallsBack() throws {
        let directory = try SpoolTestDirectory()
        defer { directory.remove() }
        let body = SpooledBody(limits: SpooledBody.Limits(memoryBytes: 1000, maxBytes: 100_000)) { () throws(SpoolError) in
            SpoolFile(descriptor: open("/dev/full", O_RDWR | O_CLOEXEC), fallbacks: [directory.path])
        }
        for index in 0..<5 { try body.append(Self.page(index)) }
        #expect(body.isSpooled)
        #expect(try Self.readAll(body) == (0..<5).flatMap { Self.page($0) })
        #expect(directory.openDescriptors() == 1)
        body.discard()
        #expect(directory.openDescriptors() == 0)
    }

    @Test func aSpoolThatCannotBeCreatedIsAnError() throws {
        let body = SpooledBody(limits: SpooledBody.Limits(memoryBytes: 10, maxBytes: 100_000)) { () throws(SpoolError) in
            try SpoolFile.create(inFirstOf: ["/nonexistent-pageproxy-dir"])
        }
        #expect(throws: SpoolError.createFailed(directory: "/nonexistent-pageproxy-dir", errno: ENOENT)) {
            try body.append(Self.page(0, size: 11))
        }
    }

    @Test func anEmptyBodyHasNoChunks() throws {
        let body = SpooledBody(limits: SpooledBody.Limits()) { () throws(SpoolError) in throw .writeFailed(errno: EIO) }
        var chunks = body.chunks(of: 10)
        #expect(try chunks.next() == nil)
    }
}

import Foundation
import Glibc
import Synchronization
import Testing

@testable import PageProxyCore

/// Issue 13, twelfth pass: a body of file ranges and bytes is copied into the staging buffer a whole buffer at a time,
/// across the parts' edges (a `send` a buffer, not a call a page), in order; an in-memory part of a buffer's size is
/// left to be sent from where it is; a file cut short stops the copy after what it had.
@Suite struct StagedBodyPartsTests {
    /// Every fill of `staged` into a buffer of `capacity`, and the bytes they made, up to its end or a failure.
    private static func fills(
        of staged: inout StagedBodyParts, capacity: Int
    ) -> (counts: [Int], bytes: [UInt8], taken: [ArraySlice<UInt8>], failure: SocketError?) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 64)
        defer { buffer.deallocate() }
        var counts: [Int] = []
        var bytes: [UInt8] = []
        var taken: [ArraySlice<UInt8>] = []
        while !staged.isFinished {
            if let whole = staged.takeBytes(atLeast: capacity) {
                taken.append(whole)
                bytes += whole
                continue
            }
            let (count, failure) = staged.fill(buffer)
            counts.append(count)
            bytes += buffer[..<count]
            if let failure { return (counts, bytes, taken, failure) }
        }
        return (counts, bytes, taken, nil)
    }

    @Test("pages of a file with commas between them fill every buffer whole, across the parts' edges, in order")
    func buffersFillWhole() throws {
        let directory = TemporaryDirectory()
        let budget = HeldEntryFileBudget(capacity: 1)
        let body = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let (file, _) = try FileRangeWriteTests.held(body, in: directory, budget: budget)
        // 120 pages of 7,001 bytes, `[` before, `,` between, `]` after; empty parts among them.
        var parts: [ResponseBodyPart] = [.bytes(Array("head\r\n[".utf8)[...])]
        for page in 0..<120 {
            if page > 0 { parts.append(.bytes([UInt8(ascii: ",")][...])) }
            parts += [.file(file, (page * 331)..<(page * 331 + 7001)), .bytes([][...]), .file(file, 9..<9)]
        }
        parts.append(.bytes(Array("]".utf8)[...]))
        let expected = parts.flatMap { $0.bytes ?? [] }
        let capacity = 64 << 10
        var staged = StagedBodyParts(parts)
        let result = Self.fills(of: &staged, capacity: capacity)
        #expect(result.failure == nil)
        #expect(result.taken.isEmpty)
        // 840 KB in 13 fills of 64 KB and the rest: never a fill a page.
        #expect(result.counts.count == (expected.count + capacity - 1) / capacity)
        #expect(result.counts.dropLast().allSatisfy { $0 == capacity })
        let inOrder = result.bytes == expected
        #expect(inOrder)
    }

    @Test("an in-memory part of a buffer's size or more is taken whole after what was staged before it, not copied")
    func largeBytesAreTakenWhole() throws {
        let directory = TemporaryDirectory()
        let budget = HeldEntryFileBudget(capacity: 1)
        let body = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        let (file, _) = try FileRangeWriteTests.held(body, in: directory, budget: budget)
        let large = [UInt8](repeating: 7, count: 100)
        let parts: [ResponseBodyPart] = [.bytes([1, 2, 3][...]), .file(file, 0..<10), .bytes(large[...]), .bytes([4, 5][...]), .file(file, 20..<30)]
        var staged = StagedBodyParts(parts)
        let result = Self.fills(of: &staged, capacity: 64)
        #expect(result.failure == nil)
        #expect(result.counts == [13, 12])
        #expect(result.taken == [large[...]])
        #expect(result.bytes == [1, 2, 3] + body[0..<10] + large + [4, 5] + body[20..<30])
    }

    /// A body of `count` bytes in a file of its own, left unread, checked against `checksum` (its own by default);
    /// `corrupt` is told when the check fails.
    private static func deferred(
        _ body: [UInt8], in directory: TemporaryDirectory, name: String, checksum: UInt64? = nil, corrupt: @escaping @Sendable () -> Void = {}
    ) throws -> DeferredEntryBody {
        let path = directory.path + "/" + name
        #expect(FileManager.default.createFile(atPath: path, contents: Data(Array(repeating: UInt8(ascii: "h"), count: 100) + body)))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        let file = try #require(HeldEntryFile(descriptor: fd, bodyOffset: 100, budget: HeldEntryFileBudget(capacity: 1)))
        return DeferredEntryBody(file: file, length: body.count, checksum: checksum ?? XXHash64.hash(body), reportCorrupt: corrupt)
    }

    @Test("bodies left unread are staged whole and checked, each run where it belongs: after bytes, at a fill's start, and one larger than the buffer from memory")
    func checkedBodiesAreStagedInOrder() throws {
        let directory = TemporaryDirectory()
        var parts: [ResponseBodyPart] = [.bytes(Array("head\r\n[".utf8)[...])]
        var expected = Array("head\r\n[".utf8)
        // Pages of 700 and 300 bytes with a wrapper of 9 bytes before the items and 2 after; one of 5,000 bytes.
        for (index, length) in [700, 300, 700, 700, 5000, 300].enumerated() {
            let body = Array("{\"data\":[".utf8) + (0..<length).map { UInt8(ascii: "a") + UInt8(($0 + index) % 26) } + Array("]}".utf8)
            let run = 9..<(9 + length)
            if index > 0 {
                parts.append(.bytes([UInt8(ascii: ",")][...]))
                expected.append(UInt8(ascii: ","))
            }
            parts.append(.checkedFile(try Self.deferred(body, in: directory, name: "page\(index)"), run))
            expected += body[run]
        }
        parts.append(.bytes(Array("]".utf8)[...]))
        expected += Array("]".utf8)
        var staged = StagedBodyParts(parts)
        let result = Self.fills(of: &staged, capacity: 1024)
        #expect(result.failure == nil)
        #expect(result.bytes == expected)
        #expect(result.counts.allSatisfy { $0 <= 1024 })
        #expect(result.taken.count == 1, "the page larger than the buffer is read into memory, checked, and sent from there")
    }

    @Test("a body that fails its check stops the copy before any byte of it: the fill has the pages before it, the store is told")
    func aBodyThatFailsItsCheckIsNotSent() throws {
        let directory = TemporaryDirectory()
        let told = Mutex(0)
        let good = (0..<400).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let bad = (0..<400).map { UInt8(ascii: "A") + UInt8($0 % 26) }
        let parts: [ResponseBodyPart] = [
            .bytes([UInt8(ascii: "[")][...]), .checkedFile(try Self.deferred(good, in: directory, name: "good"), 1..<399),
            .bytes([UInt8(ascii: ",")][...]),
            .checkedFile(try Self.deferred(bad, in: directory, name: "bad", checksum: XXHash64.hash(bad) ^ 1) { told.withLock { $0 += 1 } }, 1..<399),
            .bytes([UInt8(ascii: "]")][...]),
        ]
        var staged = StagedBodyParts(parts)
        let result = Self.fills(of: &staged, capacity: 4096)
        #expect(result.failure == StagedBodyParts.checkFailed)
        #expect(result.bytes == [UInt8(ascii: "[")] + good[1..<399] + [UInt8(ascii: ",")])
        #expect(told.withLock { $0 } == 1)
        // Read back for a sink that cannot send from a file (or the memo): refused the same way.
        #expect(parts[3].bytes == nil)
        #expect(parts[1].bytes.map(Array.init) == Array(good[1..<399]))
    }

    @Test("a file cut short in place stops the copy: the fill has what came before it, then the failure")
    func aFileCutShortStopsTheCopy() throws {
        let directory = TemporaryDirectory()
        let budget = HeldEntryFileBudget(capacity: 1)
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 5000)
        let (file, path) = try FileRangeWriteTests.held(body, in: directory, budget: budget)
        #expect(truncate(path, 100 + 1000) == 0)
        var staged = StagedBodyParts([.bytes([1, 2][...]), .file(file, 0..<body.count), .bytes([3][...])])
        let result = Self.fills(of: &staged, capacity: 4096)
        #expect(result.failure == .failed(call: "pread", errno: 0))
        #expect(result.bytes == [1, 2] + body[0..<1000])
    }
}

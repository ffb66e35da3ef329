import Glibc
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

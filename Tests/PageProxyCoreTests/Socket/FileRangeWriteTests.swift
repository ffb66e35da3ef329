import Foundation
import Glibc
import Testing

@testable import PageProxyCore

/// Issue 13, eighth and twelfth passes: a body of bytes and ranges of open entry files leaves a socket in order, the
/// ranges read from their files into a staging buffer, across partial writes and the buffer's edges; a file cut short
/// fails the write; a peer that takes nothing times the write out. On loopback TCP, as the proxy's clients.
@Suite struct FileRangeWriteTests {
    private static func makePair() -> (AsyncSocket, AsyncSocket) {
        let (left, right) = makeNonBlockingLoopbackPair()
        return (AsyncSocket(socket: Socket(fd: left)), AsyncSocket(socket: Socket(fd: right)))
    }

    /// The `count` bytes `right` receives while `left` writes `parts`.
    private static func received(_ count: Int, from left: AsyncSocket, to right: AsyncSocket, writing parts: [ResponseBodyPart]) async throws -> [UInt8] {
        async let written: Void = left.write(bodyParts: parts, deadline: .now + .seconds(30))
        var received: [UInt8] = []
        while received.count < count {
            _ = try await right.read(into: &received, maxBytes: 65536, deadline: .now + .seconds(30))
        }
        try await written
        return received
    }

    /// A file of a 100-byte head and `body`, held open from its body on.
    static func held(_ body: [UInt8], in directory: TemporaryDirectory, budget: HeldEntryFileBudget) throws -> (HeldEntryFile, String) {
        let path = directory.path + "/entry"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(Array(repeating: UInt8(ascii: "h"), count: 100) + body)))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        return (try #require(HeldEntryFile(descriptor: fd, bodyOffset: 100, budget: budget)), path)
    }

    @Test("bytes and file ranges arrive in order: ranges larger than the socket and the staging buffer, many small ones across the buffer's edges, an in-memory part larger than the buffer among them; the file is closed after")
    func bytesAndFileRangesArriveInOrder() async throws {
        let directory = TemporaryDirectory()
        let budget = HeldEntryFileBudget(capacity: 1)
        let body = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let large = (0..<(AsyncSocket.stagingBytes + 17)).map { UInt8(truncatingIfNeeded: $0 % 241) }
        let (left, right) = Self.makePair()
        defer { left.close(); right.close() }
        do {
            let (file, _) = try Self.held(body, in: directory, budget: budget)
            // Pages of 7,001 bytes with a comma between them: the buffer fills mid-page and mid-comma alike.
            let pages = (0..<120).flatMap { page -> [ResponseBodyPart] in
                [.bytes([UInt8(ascii: ",")][...]), .file(file, (page * 331)..<(page * 331 + 7001))]
            }
            let parts: [ResponseBodyPart] = [
                .bytes(Array("head\r\n[".utf8)[...]), .file(file, 5..<(body.count - 3)), .bytes([UInt8(ascii: ",")][...]), .bytes([][...]),
                .file(file, 0..<10), .file(file, 7..<7), .bytes(large[1...]), .bytes([UInt8(ascii: ",")][...]), .file(file, 3..<9),
            ] + pages + [.bytes(Array("]".utf8)[...])]
            let expected = parts.flatMap { $0.bytes ?? [] }
            #expect(expected.count > 3 * AsyncSocket.stagingBytes + large.count)
            var start: [UInt8] = Array("head\r\n[".utf8) + body[5..<(body.count - 3)]
            start += [UInt8(ascii: ",")] + body[0..<10]
            start += large[1...]
            #expect(expected.starts(with: start))
            let received = try await Self.received(expected.count, from: left, to: right, writing: parts)
            // Compared as one Bool: a failed `==` of two large arrays would be diffed at length.
            let inOrder = received == expected
            #expect(inOrder, "received \(received.count) bytes of \(expected.count)")
            #expect(budget.heldCount == 1)
        }
        #expect(budget.heldCount == 0)
    }

    @Test("a file range to a peer that takes nothing times the write out at its deadline, what left being the answer's start")
    func aPeerThatTakesNothingTimesTheWriteOut() async throws {
        let directory = TemporaryDirectory()
        let budget = HeldEntryFileBudget(capacity: 1)
        let body = (0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 % 239) }
        let (left, right) = Self.makePair()
        defer { left.close(); right.close() }
        let (file, _) = try Self.held(body, in: directory, budget: budget)
        // Small buffers both ends (no autotuning): the kernel cannot take the whole answer.
        left.socket.setSendBufferSize(64 << 10)
        var receiveBuffer: Int32 = 64 << 10
        _ = right.withOpenDescriptor { setsockopt($0, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size)) }
        await #expect(throws: SocketError.timedOut) {
            try await left.write(bodyParts: [.bytes([1][...]), .file(file, 0..<body.count)], deadline: .now + .milliseconds(300))
        }
        let sent = left.bytesWritten
        #expect(sent > 1 && sent < body.count + 1)
        var received: [UInt8] = []
        while received.count < sent {
            _ = try await right.read(into: &received, maxBytes: 1 << 20, deadline: .now + .seconds(30))
        }
        #expect(received == [1] + body[0..<(sent - 1)])
    }

    @Test("a file range sent to a client that has gone is an error, not SIGPIPE ending the process (in a process of its own, SIGPIPE at its default)")
    func sendingToAGonePeerIsAnError() async throws {
        let outcome = try await OwnProcessTest.run("sendingToAGonePeerWithSIGPIPEAtItsDefault")
        #expect(outcome.signal == nil, "the process died of signal \(outcome.signal ?? 0)")
        #expect(outcome.status == 0)
        #expect(outcome.finished)
    }

    /// The body of `sendingToAGonePeerIsAnError`, in its own process only: the disposition of SIGPIPE is the
    /// process's, and any test that sent from a file before would have set it ignored already.
    @Test(.enabled(if: OwnProcessTest.isChild))
    func sendingToAGonePeerWithSIGPIPEAtItsDefault() async throws {
        _ = signal(SIGPIPE, SIG_DFL)
        let directory = TemporaryDirectory()
        let budget = HeldEntryFileBudget(capacity: 1)
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 16)
        let (left, right) = Self.makePair()
        defer { left.close() }
        right.close()
        let (file, _) = try Self.held(body, in: directory, budget: budget)
        // The first sends may be taken before the kernel knows the peer is gone (a reset comes back); one of the next
        // is EPIPE, which raises SIGPIPE unless it is ignored.
        var failed = false
        for _ in 0..<10 where !failed {
            do {
                try await left.write(bodyParts: [.file(file, 0..<body.count)], deadline: .now + .seconds(30))
            } catch {
                failed = true
            }
        }
        #expect(failed)
        OwnProcessTest.finish()
    }

    @Test("an answer of bytes only, more parts than one sendmsg takes and one larger than the socket buffer, arrives in order")
    func bytesOnlyArriveInOrder() async throws {
        let large = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 249) }
        let small = (0..<(3 * AsyncSocket.maxGatheredParts)).map { ResponseBodyPart.bytes([UInt8(truncatingIfNeeded: $0)][...]) }
        let parts = [.bytes([][...]), .bytes(large[3...])] + small + [.bytes([7, 8][1...])]
        let expected = parts.flatMap { $0.bytes ?? [] }
        let (left, right) = Self.makePair()
        defer { left.close(); right.close() }
        #expect(try await Self.received(expected.count, from: left, to: right, writing: parts) == expected)
    }

    @Test("an answer of page-sized byte parts with commas between them, several megabytes, arrives in order (each write offers ~1 MiB)")
    func pageSizedPartsArriveInOrder() async throws {
        let parts: [ResponseBodyPart] = (0..<200).flatMap { page -> [ResponseBodyPart] in
            [.bytes((0..<(21_000 + page)).map { UInt8(truncatingIfNeeded: $0 &+ page) }[...]), .bytes([UInt8(ascii: ",")][...])]
        }
        let expected = parts.flatMap { $0.bytes ?? [] }
        let (left, right) = Self.makePair()
        defer { left.close(); right.close() }
        #expect(try await Self.received(expected.count, from: left, to: right, writing: parts) == expected)
    }

    @Test("a file cut short in place fails the write: what it had is sent, the rest never")
    func aFileCutShortFailsTheWrite() async throws {
        let directory = TemporaryDirectory()
        let budget = HeldEntryFileBudget(capacity: 1)
        let body = Array(repeating: UInt8(ascii: "x"), count: 5000)
        let (left, right) = Self.makePair()
        defer { left.close(); right.close() }
        let (file, path) = try Self.held(body, in: directory, budget: budget)
        #expect(truncate(path, 100 + 1000) == 0)
        await #expect(throws: SocketError.failed(call: "pread", errno: 0)) {
            try await left.write(bodyParts: [.bytes([1, 2][...]), .file(file, 0..<body.count)], deadline: .now + .seconds(30))
        }
        var received: [UInt8] = []
        while received.count < 1002 {
            _ = try await right.read(into: &received, maxBytes: 65536, deadline: .now + .seconds(30))
        }
        #expect(received == [1, 2] + body[0..<1000])
    }
}

import Foundation
import Glibc
import Testing

@testable import PageProxyCore

/// Issue 13, eighth pass: a body of bytes and ranges of open entry files leaves a socket in order, the ranges sent
/// from their files (`sendfile`), across partial writes; a file cut short fails the write. On loopback TCP, where
/// `TCP_CORK` does something (on a Unix socket pair it is refused, and an answer left corked would go unseen).
@Suite struct FileRangeWriteTests {
    private static func makePair() -> (AsyncSocket, AsyncSocket) {
        let (left, right) = makeNonBlockingLoopbackPair()
        return (AsyncSocket(socket: Socket(fd: left)), AsyncSocket(socket: Socket(fd: right)))
    }

    /// Whether `socket` is corked now.
    private static func isCorked(_ socket: AsyncSocket) -> Bool {
        socket.withOpenDescriptor { fd in
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &value, &length) == 0 && value != 0
        } ?? false
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
    private static func held(_ body: [UInt8], in directory: TemporaryDirectory, budget: HeldEntryFileBudget) throws -> (HeldEntryFile, String) {
        let path = directory.path + "/entry"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(Array(repeating: UInt8(ascii: "h"), count: 100) + body)))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        return (try #require(HeldEntryFile(descriptor: fd, bodyOffset: 100, budget: budget)), path)
    }

    @Test("bytes and file ranges arrive in order, a range larger than the socket buffer too, and the file is closed after")
    func bytesAndFileRangesArriveInOrder() async throws {
        let directory = TemporaryDirectory()
        let budget = HeldEntryFileBudget(capacity: 1)
        let body = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) }
        let (left, right) = Self.makePair()
        defer { left.close(); right.close() }
        do {
            let (file, _) = try Self.held(body, in: directory, budget: budget)
            let parts: [ResponseBodyPart] = [
                .bytes(Array("head\r\n[".utf8)[...]), .file(file, 5..<(body.count - 3)), .bytes([UInt8(ascii: ",")][...]), .bytes([][...]),
                .file(file, 0..<10), .file(file, 7..<7), .bytes(Array("]".utf8)[...]),
            ]
            let expected = Array("head\r\n[".utf8) + body[5..<(body.count - 3)] + [UInt8(ascii: ",")] + body[0..<10] + Array("]".utf8)
            #expect(try await Self.received(expected.count, from: left, to: right, writing: parts) == expected)
            #expect(budget.heldCount == 1)
            // Corked only while it wrote: the last partial segment leaves now, not 200 ms later.
            #expect(!Self.isCorked(left))
        }
        #expect(budget.heldCount == 0)
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
        #expect(!Self.isCorked(left))
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

    @Test("a file cut short in place fails the write: what it had is sent, the rest never")
    func aFileCutShortFailsTheWrite() async throws {
        let directory = TemporaryDirectory()
        let budget = HeldEntryFileBudget(capacity: 1)
        let body = Array(repeating: UInt8(ascii: "x"), count: 5000)
        let (left, right) = Self.makePair()
        defer { left.close(); right.close() }
        let (file, path) = try Self.held(body, in: directory, budget: budget)
        #expect(truncate(path, 100 + 1000) == 0)
        await #expect(throws: SocketError.failed(call: "sendfile", errno: 0)) {
            try await left.write(bodyParts: [.bytes([1, 2][...]), .file(file, 0..<body.count)], deadline: .now + .seconds(30))
        }
        #expect(!Self.isCorked(left), "uncorked whatever happened")
        var received: [UInt8] = []
        while received.count < 1002 {
            _ = try await right.read(into: &received, maxBytes: 65536, deadline: .now + .seconds(30))
        }
        #expect(received == [1, 2] + body[0..<1000])
    }
}

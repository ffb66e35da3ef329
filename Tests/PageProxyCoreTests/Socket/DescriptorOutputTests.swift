import PageProxyCore
import PageProxyMock
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `DescriptorOutput`: every byte or the errno, never a trap (FileHandle's `write(_:)` stops the process on a failure).
@Suite struct DescriptorOutputTests {
    @Test("a megabyte through a 64 KB pipe arrives whole: short writes are continued")
    func shortWritesAreContinued() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let (reader, writer) = (ends[0], ends[1])
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        // Both ends on threads of their own (the write blocks whenever the pipe is full), not on the cooperative pool.
        async let received = onOwnThread { () -> [UInt8] in
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 8192)
            while true {
                let count = read(reader, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                received += buffer[..<count]
            }
            return received
        }
        let failure = await onOwnThread { () -> Int32? in
            defer { close(writer) }
            return bytes.withUnsafeBytes { DescriptorOutput.write($0, to: writer) }
        }
        #expect(failure == nil)
        #expect(await received == bytes)
        close(reader)
    }

    @Test("a pipe whose reader left is EPIPE, returned, not a crash")
    func aGoneReaderIsAnError() {
        _ = signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        #expect(DescriptorOutput.write("a line\n", to: ends[1]) == EPIPE)
    }

    @Test("/dev/full is ENOSPC")
    func aFullDeviceIsAnError() throws {
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        defer { close(full) }
        #expect(DescriptorOutput.write("x", to: full) == ENOSPC)
    }
}

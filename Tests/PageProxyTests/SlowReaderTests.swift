import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

#if canImport(Glibc)
import Glibc
#endif

/// `server.writeTimeoutSeconds` is how long a client may take none of its answer's bytes, not how long the whole
/// answer may take (attack5 F2: a 10.6 MB answer to a client reading at 200 KB/s was cut at 30 s every time).
@Suite struct SlowReaderTests {
    @Test("a client that keeps reading a merged answer slowly gets all of it, though it takes longer than the write timeout")
    func slowReaderIsNotCut() async throws {
        // A write timeout of 3 s, not 1: a client starved of CPU for a second (six CPU hogs on two cores) was cut. The
        // answer grows with it, so that it still takes longer than the timeout.
        let total = 9000
        let expected = MockDataset.mergedJSON(total: total)
        try #require(expected.count > 1_300_000, "the answer must take many slow reads")
        try await TestStack.run(configure: {
            $0.server.sendBufferBytes = 16 * 1024
            $0.server.writeTimeout = .seconds(3)
        }) { stack in
            let port = stack.port
            let started = ContinuousClock.now
            // The client reads from a thread of its own (blocking calls, off the cooperative pool): as a task of the
            // pool it waited behind the suites running beside it (8 at once on 2 cores) for longer than the write
            // timeout between two reads, and was cut (a load flake). Its pace is its own now, whatever the pool does.
            let received = try await onOwnThread { SlowClient.read(port: port, target: "/plain?mock_total=\(total)") }.get()
            let response = try RawResponseBytes(received, requireComplete: true)
            #expect(response.status == 200)
            // Compared as one Bool: a failed `==` of two 1.8 MB arrays would have the test library diff them for minutes.
            let isWhole = response.body == expected
            #expect(isWhole, "got \(response.body.count) bytes of \(expected.count); starts \(String(decoding: response.body.prefix(80), as: UTF8.self))")
            // The test's own premise (not a speed claim): the answer took longer than the write timeout.
            try #require(ContinuousClock.now - started > .seconds(3))
        }
    }
}

/// A client that reads 8 KiB every 20 ms (~400 KB/s) through a 4 KiB receive buffer, with blocking calls: to run on a
/// thread of its own. Each read waits at most 600 s (a hang guard: the first byte follows the walk of 900 pages, which
/// took more than 120 s at load ~20 beside the suite, flake23's last run).
enum SlowClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The raw response to a GET of `target`: every byte read until the response is complete or the server closes.
    static func read(port: Int, target: String) -> Result<[UInt8], Failure> {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return .failure(Failure(description: "socket: errno \(errno)")) }
        defer { close(descriptor) }
        // Set before connecting, so that the TCP window is negotiated with it.
        var receiveBuffer: Int32 = 4 * 1024
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, socklen_t(MemoryLayout<Int32>.size))
        var guardTime = timeval(tv_sec: 600, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &guardTime, socklen_t(MemoryLayout<timeval>.size))
        let connected = connectLoopback(descriptor, port: port)
        guard connected == 0 else { return .failure(Failure(description: "connect: errno \(errno)")) }
        let request = Array(RawHTTPClient.requestText(target).utf8)
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return .failure(Failure(description: "send: errno \(errno)")) }
            sent += count
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8 * 1024)
        while (try? RawResponseBytes(received, requireComplete: true)) == nil {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else {
                if count < 0 { return .failure(Failure(description: "recv after \(received.count) bytes: errno \(errno)")) }
                break
            }
            received += chunk[..<count]
            // The pace of a slow reader (not a wait for anything).
            usleep(20_000)
        }
        return .success(received)
    }
}

import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A connection answered on the cooperative pool gives its thread back between pipelined answers: the pool has as
/// many threads as cores, and clients pipelining quick answers must not keep the listener and everyone else waiting.
@Suite struct PoolFairnessTests {
    @Test("more pipelining clients than the pool has threads do not keep a new connection from its answer until they end")
    func pipeliningClientsLeaveThePoolToOthers() async throws {
        try await TestStack.run { stack in
            // Each sends all its requests at once and reads the answers from its own threads (blocking calls, off the
            // pool), so the server always finds the next request already read.
            let flooders = try (0...ProcessInfo.processInfo.activeProcessorCount).map { _ in
                try PipeliningFlooder(port: stack.port, target: "/nope", requests: 1_000)
            }
            #expect(try await stack.get("/healthz").status == 200)
            let readBeforeTheAnswer = flooders.reduce(0) { $0 + $1.bytesRead }
            try await poll("every flooder is answered to the end", limit: .seconds(120)) { flooders.allSatisfy(\.isDone) }
            let readInAll = flooders.reduce(0) { $0 + $1.bytesRead }
            // Without the yield, the pool's threads stay with the flooders from one answer to the next: the listener
            // accepts the new connection and answers it only when their writes happen to wait: after two thirds of the
            // flood here, against 1 % with it.
            #expect(readBeforeTheAnswer < readInAll / 4, "the new connection was answered after \(readBeforeTheAnswer) of \(readInAll) bytes of the flood")
        }
    }
}

/// A client on two threads of its own: one writes `requests` pipelined GETs (the last with `Connection: close`), the
/// other reads until the server closes.
final class PipeliningFlooder: Sendable {
    private let descriptor: Int32
    private struct State {
        var bytesRead = 0
        var isDone = false
        var threadsRunning = 2
    }
    private let state = Mutex(State())

    var bytesRead: Int { state.withLock { $0.bytesRead } }
    var isDone: Bool { state.withLock { $0.isDone } }

    init(port: Int, target: String, requests: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = connectLoopback(descriptor, port: port)
        guard descriptor >= 0, connected == 0 else {
            if descriptor >= 0 { close(descriptor) }
            throw POSIXError(.ECONNREFUSED)
        }
        let one = Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        var all = [UInt8]()
        all.reserveCapacity(one.count * requests + 20)
        for _ in 1..<requests { all += one }
        all += Array("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        let bytes = all
        Thread { [self] in
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count <= 0 { break }
                sent += count
            }
            threadEnded()
        }.start()
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                state.withLock { $0.bytesRead += count }
            }
            state.withLock { $0.isDone = true }
            threadEnded()
        }.start()
    }

    /// The descriptor is closed by the last thread to end, so that no thread uses a number reused meanwhile.
    private func threadEnded() {
        let last = state.withLock { state in
            state.threadsRunning -= 1
            return state.threadsRunning == 0
        }
        if last { close(descriptor) }
    }
}

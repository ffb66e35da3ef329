import PageProxyCore
import Synchronization

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A `ResponseSink` that keeps every byte written, so that responders run with no socket (Hummingbird's `.router`
/// test mode); `isGone` makes it act as a client that left.
final class MemoryResponseSink: ResponseSink {
    private let storage = Mutex<(bytes: [UInt8], writes: Int, sliceWrites: Int)>(([], 0, 0))
    private let gone = Mutex(false)

    func write(_ parts: [[UInt8]], deadline: WriteDeadline) async throws(SocketError) {
        guard !gone.withLock({ $0 }) else { throw .disconnected }
        storage.withLock { storage in
            for part in parts { storage.bytes += part }
            storage.writes += 1
        }
    }

    /// Keeps the slices' bytes as a socket sends them, counting the writes that came as slices.
    func write(slices: [ArraySlice<UInt8>], deadline: WriteDeadline) async throws(SocketError) {
        try await write(slices.map(Array.init), deadline: deadline)
        storage.withLock { $0.sliceWrites += 1 }
    }

    /// How many writes came as slices of the caller's arrays (`ResponseWriter.send(_:headers:slices:)`).
    var sliceWrites: Int { storage.withLock { $0.sliceWrites } }

    /// Everything written so far.
    var bytes: [UInt8] { storage.withLock { $0.bytes } }

    /// How many writes (each one system call on a socket) it took.
    var writes: Int { storage.withLock { $0.writes } }

    /// From now on writes fail as they do once the client has closed its connection.
    func leave() { gone.withLock { $0 = true } }
}

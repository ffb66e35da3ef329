import PageProxyCore
import Synchronization

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A `ResponseSink` that keeps every byte written, so that responders run with no socket (Hummingbird's `.router`
/// test mode); `isGone` makes it act as a client that left.
final class MemoryResponseSink: ResponseSink {
    private let storage = Mutex<[UInt8]>([])
    private let gone = Mutex(false)

    func write(_ parts: [[UInt8]], deadline: ContinuousClock.Instant?) async throws(SocketError) {
        guard !gone.withLock({ $0 }) else { throw .disconnected }
        storage.withLock { bytes in for part in parts { bytes += part } }
    }

    /// Everything written so far.
    var bytes: [UInt8] { storage.withLock { $0 } }

    /// From now on writes fail as they do once the client has closed its connection.
    func leave() { gone.withLock { $0 = true } }
}

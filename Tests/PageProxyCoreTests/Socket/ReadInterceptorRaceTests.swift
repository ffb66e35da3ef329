import Synchronization
import Testing

@testable import PageProxyCore

#if canImport(Glibc)
import Glibc
#endif

/// A read wait's interceptor run on the waiting task's own thread (for an edge remembered from before the wait), and
/// an edge that comes while it runs (review25's HIGH on h13-memo25: the edge was taken with no read, and the request it
/// announced waited for an edge that never came, until the idle timeout).
@Suite struct ReadInterceptorRaceTests {
    private static func makePair() -> (AsyncSocket, AsyncSocket) {
        let (left, right) = makeNonBlockingSocketPair()
        return (AsyncSocket(socket: Socket(fd: left)), AsyncSocket(socket: Socket(fd: right)))
    }

    /// Polls `condition` (with no suspension: it runs inside an interceptor) until it holds or 10 s pass.
    private static func holds(_ condition: () -> Bool) -> Bool {
        let end = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < end else { return false }
            usleep(1000)
        }
        return true
    }

    /// Writes `byte` to `left`, then waits until the loop has taken the edge it gives `right` (remembered, nobody
    /// waiting): a byte sent through a fresh pair after it is seen by the one loop thread only once that edge was.
    private static func sendAndAwaitEdge(_ byte: UInt8, from left: AsyncSocket, to right: AsyncSocket) -> Bool {
        var position = AsyncSocket.PartsPosition([[byte]])
        guard left.writeNow([[byte]], from: &position).error == nil else { return false }
        let (barrierLeft, barrierRight) = makePair()
        defer { barrierLeft.close(); barrierRight.close() }
        var barrierPosition = AsyncSocket.PartsPosition([[0]])
        guard barrierLeft.writeNow([[0]], from: &barrierPosition).error == nil else { return false }
        return holds { barrierRight.readEdgeRemembered } && right.readEdgeRemembered
    }

    /// Reads on each edge; the first time, before it returns, `hold` runs (the next byte is sent then).
    private final class Interceptor: ReadInterceptor {
        private let socket: AsyncSocket
        private let hold: @Sendable () -> Void
        private let state = Mutex((calls: 0, bytes: [UInt8]()))

        init(socket: AsyncSocket, hold: @escaping @Sendable () -> Void) {
            self.socket = socket
            self.hold = hold
        }

        var bytes: [UInt8] { state.withLock { $0.bytes } }

        func readable() -> SocketReadiness.Interception {
            var buffer: [UInt8] = []
            let read = socket.readNow(into: &buffer)
            let first = state.withLock { state in
                state.calls += 1
                state.bytes += buffer
                return state.calls == 1
            }
            if first { hold() }
            guard case .success(let count?) = read, count > 0 else { return .keepWaiting(deadline: .now + .seconds(10)) }
            return first ? .keepWaiting(deadline: .now + .seconds(10)) : .wake
        }
    }

    @Test("an edge that comes while the interceptor reads on the waiting task's thread is followed by a read: the byte it announced is not left waiting")
    func anEdgeDuringAnInterceptionOnTheTasksThreadIsRead() async throws {
        let (left, right) = Self.makePair()
        defer { left.close(); right.close() }
        var buffer: [UInt8] = []
        // A read that empties the socket: the next wait waits for an edge first.
        try await left.write([1], deadline: .now + .seconds(5))
        #expect(try await right.read(into: &buffer, deadline: .now + .seconds(5)) == 1)
        // Byte 2's edge comes while nobody waits: the wait's first look finds it, and the interceptor runs on this
        // thread. It reads byte 2; byte 3 arrives (its edge taken by the loop, nobody waiting) before it returns.
        #expect(Self.sendAndAwaitEdge(2, from: left, to: right))
        let sentThird = Mutex(false)
        let interceptor = Interceptor(socket: right) {
            sentThird.withLock { $0 = Self.sendAndAwaitEdge(3, from: left, to: right) }
        }
        // As `Connection.nextRequest` does: wait while the interceptor takes edges; read when told to.
        var read: [UInt8] = []
        for _ in 0..<4 where !(interceptor.bytes + read).contains(3) {
            if try await right.waitUntilReadable(deadline: .now + .seconds(10), interceptor: interceptor) { continue }
            _ = try await right.read(into: &read, deadline: .now + .seconds(10))
        }
        #expect(sentThird.withLock { $0 })
        #expect(interceptor.bytes.first == 2)
        #expect(interceptor.bytes + read == [2, 3])
    }
}

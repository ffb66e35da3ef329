import Dispatch
import PageProxyCore
import PageProxyMock
import Synchronization
import Testing

@testable import PageProxyServer

#if canImport(Glibc)
import Glibc
#endif

/// The connection's peer-close watch over a socketpair: it cancels the work it guards only while armed.
@Suite struct DisconnectWatchTests {
    /// The server's end and the client's end of a connection.
    static func makeConnection() -> (server: AsyncSocket, client: AsyncSocket) {
        var fds: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0, "socketpair failed")
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        return (AsyncSocket(socket: Socket(fd: fds[0])), AsyncSocket(socket: Socket(fd: fds[1])))
    }

    @Test("a client that leaves while the watch is armed cancels the guarded work, through its task group")
    func armedWatchCancelsWorkWhenClientLeaves() async {
        let (server, client) = Self.makeConnection()
        defer { server.close() }
        let watch = DisconnectWatch(socket: server)
        let armed = MockReleaseGate()
        let wasCancelled = Mutex(false)
        async let guarded: Void = watch.guarding {
            watch.arm()
            armed.open()
            // Held until cancelled: nothing else opens this gate.
            await MockReleaseGate().pass()
            wasCancelled.withLock { $0 = Task.isCancelled }
            await watch.stop()
        }
        await armed.pass()
        client.close()
        await guarded
        #expect(wasCancelled.withLock { $0 })
    }

    @Test("a stopped watch does not cancel the work when the client leaves afterwards")
    func stoppedWatchLeavesWorkAlone() async throws {
        let (server, client) = Self.makeConnection()
        defer { server.close() }
        let watch = DisconnectWatch(socket: server)
        let stopped = MockReleaseGate()
        let closed = MockReleaseGate()
        let outcome = Mutex<(cancelled: Bool, read: Int)?>(nil)
        async let guarded: Void = watch.guarding {
            watch.arm()
            await watch.stop()
            stopped.open()
            await closed.pass()
            // The end of the stream is seen here, by the work: nothing watches any more, so nothing cancels it.
            var buffer: [UInt8] = []
            let read = (try? await server.read(into: &buffer, deadline: .now + .seconds(10))) ?? -1
            outcome.withLock { $0 = (Task.isCancelled, read) }
        }
        await stopped.pass()
        client.close()
        closed.open()
        await guarded
        #expect(outcome.withLock { $0?.cancelled } == false)
        #expect(outcome.withLock { $0?.read } == 0)
    }

    @Test("a pipelined request while armed does not cancel the work, and the watch can be armed again after stop")
    func pipelinedDataIsNoDeparture() async throws {
        let (server, client) = Self.makeConnection()
        defer { server.close() }
        let watch = DisconnectWatch(socket: server)
        let armed = MockReleaseGate()
        let sent = MockReleaseGate()
        let rearmed = MockReleaseGate()
        let wasCancelled = Mutex<[Bool]>([])
        async let guarded: Void = watch.guarding {
            watch.arm()
            armed.open()
            await sent.pass()
            await watch.stop()
            wasCancelled.withLock { $0.append(Task.isCancelled) }
            // The connection reads the pipelined request before it arms the watch again.
            var buffer: [UInt8] = []
            _ = try? await server.read(into: &buffer, deadline: .now + .seconds(10))
            watch.arm()
            rearmed.open()
            await MockReleaseGate().pass()
            wasCancelled.withLock { $0.append(Task.isCancelled) }
            await watch.stop()
        }
        await armed.pass()
        try await client.write(Array("GET".utf8), deadline: .now + .seconds(10))
        sent.open()
        await rearmed.pass()
        client.close()
        await guarded
        #expect(wasCancelled.withLock { $0 } == [false, true])
    }
}

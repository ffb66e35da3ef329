import PageProxyCore
import Testing

@testable import PageProxyMock
@testable import PageProxyServer

/// The listener hands every client it accepts to its server, or closes it.
@Suite struct ListenerTests {
    @Test("flaky17: a client accepted once the server no longer takes clients (its serving cancelled by a forced stop) is closed, not left open for the process's life")
    func aClientNoOneTakesIsClosed() async throws {
        let listener = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        // The server's loop, cancelled: its stream of clients ends (as `Server.stop` cancels `serving`).
        let serving = Task { for await client in listener.accepted { client.close() } }
        serving.cancel()
        await serving.value
        let deadline = ContinuousClock.now + .seconds(30)
        let client = try await AsyncSocket.connect(to: SocketAddress(host: "127.0.0.1", port: listener.port), deadline: deadline)
        defer { client.close() }
        var bytes: [UInt8] = []
        // End of stream: the listener accepted the connection and closed it (before: accepted, dropped, open).
        #expect(try await client.read(into: &bytes, deadline: deadline) == 0)
    }

    @Test("review26 L4: a client accepted while the server's loop was busy, still waiting when that loop is cancelled (a forced stop), is closed, not left open; the cancelled loop is handed no more clients")
    func aWaitingClientIsClosedWhenTheLoopIsCancelled() async throws {
        let listener = try Listener(address: SocketAddress(host: "127.0.0.1", port: 0))
        defer { listener.close() }
        let busy = MockReleaseGate()
        // The server's loop, held busy after taking its first client (a cancelled task stops waiting at the gate).
        let serving = Task {
            var taken: [Socket] = []
            for await client in listener.accepted {
                taken.append(client)
                await busy.pass()
            }
            taken.forEach { $0.close() }
            return taken.count
        }
        let deadline = ContinuousClock.now + .seconds(30)
        let address = try SocketAddress(host: "127.0.0.1", port: listener.port)
        let first = try await AsyncSocket.connect(to: address, deadline: deadline)
        defer { first.close() }
        let second = try await AsyncSocket.connect(to: address, deadline: deadline)
        defer { second.close() }
        // Until the loop holds the first and the second waits for it.
        try await poll("the loop holds the first client and the second waits", limit: .seconds(30)) {
            busy.waiting > 0 && listener.clientsWaiting > 0
        }
        #expect(busy.waiting == 1 && listener.clientsWaiting == 1)
        serving.cancel()
        #expect(await serving.value == 1)
        var bytes: [UInt8] = []
        // End of stream: the waiting client was closed (before: dropped with its descriptor open, or handed to the
        // cancelled loop).
        #expect(try await second.read(into: &bytes, deadline: deadline) == 0)
        #expect(listener.clientsWaiting == 0)
    }
}

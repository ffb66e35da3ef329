import PageProxyCore
import Testing

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
}

import PageProxyCore
import Testing

@testable import PageProxyServer

/// The registry's wait for the last connection: its time limit is measured on the injected clock, so a test moves
/// time instead of waiting for it.
@Suite(.timeLimit(.minutes(1))) struct ConnectionRegistryTests {
    /// A clock on which every wait is already over.
    static let elapsed: PageProxyClock = {
        var clock = PageProxyClock.system
        clock.sleep = { _ in }
        return clock
    }()

    /// A clock on which no wait ever ends (until cancelled).
    static let frozen: PageProxyClock = {
        var clock = PageProxyClock.system
        clock.sleep = { _ in try await Task.sleep(for: .seconds(86_400)) }
        return clock
    }()

    /// Runs `body` with a registry on `clock` holding one open connection (its server end).
    static func withOneConnection(clock: PageProxyClock, _ body: (ConnectionRegistry, AsyncSocket) async -> Void) async {
        let (server, client) = DisconnectWatchTests.makeConnection()
        let registry = ConnectionRegistry(clock: clock)
        #expect(registry.add(server, limit: 10) != nil)
        await body(registry, server)
        server.close()
        client.close()
    }

    @Test func anHourLongLimitEndsWhenTheClockSaysSo() async {
        await Self.withOneConnection(clock: Self.elapsed) { registry, server in
            #expect(await registry.waitUntilEmpty(limit: .seconds(3600)) == false)
            // The expired wait left nothing behind: the connection's removal finds no one to resume.
            registry.remove(server)
            #expect(await registry.waitUntilEmpty(limit: .seconds(3600)))
        }
    }

    @Test func theLastConnectionsRemovalEndsTheWait() async {
        await Self.withOneConnection(clock: Self.frozen) { registry, server in
            async let emptied = registry.waitUntilEmpty(limit: .seconds(1))
            registry.remove(server)
            #expect(await emptied)
        }
    }

    @Test func aCancelledWaitReturnsFalse() async {
        await Self.withOneConnection(clock: Self.frozen) { registry, server in
            let wait = Task { await registry.waitUntilEmpty(limit: .seconds(1)) }
            wait.cancel()
            #expect(await wait.value == false)
            registry.remove(server)
        }
    }

    @Test("a drain closes the idle connections, not the busy ones, and a connection going idle after it is told to close")
    func aDrainClosesIdleConnectionsOnly() {
        let (idleServer, idleClient) = DisconnectWatchTests.makeConnection()
        let (busyServer, busyClient) = DisconnectWatchTests.makeConnection()
        let (lateServer, lateClient) = DisconnectWatchTests.makeConnection()
        defer { [idleServer, idleClient, busyServer, busyClient, lateServer, lateClient].forEach { $0.close() } }
        let registry = ConnectionRegistry()
        guard let idle = registry.add(idleServer, limit: 10), let busy = registry.add(busyServer, limit: 10) else {
            Issue.record("a connection under the limit was refused")
            return
        }
        #expect(busy.setIdle(false))
        #expect(idle.setIdle(false))
        #expect(idle.setIdle(true))
        #expect(!registry.closesAfterEachAnswer)

        registry.beginDraining()
        #expect(idleServer.withOpenDescriptor { _ in true } == nil)
        #expect(busyServer.withOpenDescriptor { _ in true } == true)
        #expect(registry.isDraining && registry.closesAfterEachAnswer)
        #expect(busy.setIdle(true) == false)
        #expect(registry.add(lateServer, limit: 10) == nil)
        #expect(registry.count == 2)
    }

    @Test("the drain delay: answers close their connections, yet the registry still accepts and idles them")
    func closingAfterEachAnswerStillAccepts() {
        let (server, client) = DisconnectWatchTests.makeConnection()
        defer { [server, client].forEach { $0.close() } }
        let registry = ConnectionRegistry()
        registry.closeAfterEachAnswer()
        #expect(registry.closesAfterEachAnswer && !registry.isDraining)
        let membership = registry.add(server, limit: 10)
        #expect(membership?.setIdle(true) == true)
        #expect(registry.acceptedTotal == 1)
    }
}

/// review24 E6: a client accepted just as the listener closes is told the server is shutting down, not that it is full.
@Suite struct ServerRefusalTests {
    @Test("a refusal while draining says shutting_down; otherwise too_many_connections; both 503 with Retry-After: 1")
    func aDrainingServerSaysSo() {
        let draining = String(decoding: ErrorResponse.closingResponse(for: Server.refusal(draining: true)), as: UTF8.self)
        #expect(draining.hasPrefix("HTTP/1.1 503 "))
        #expect(draining.contains("\"code\":\"shutting_down\""))
        #expect(draining.contains("Retry-After: 1\r\n"))
        let full = String(decoding: ErrorResponse.closingResponse(for: Server.refusal(draining: false)), as: UTF8.self)
        #expect(full.hasPrefix("HTTP/1.1 503 "))
        #expect(full.contains("\"code\":\"too_many_connections\""))
        #expect(full.contains("Retry-After: 1\r\n"))
    }
}

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
        #expect(registry.add(server, limit: 10))
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
}

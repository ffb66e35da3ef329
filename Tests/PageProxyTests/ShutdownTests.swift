import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// DESIGN.md "Operation": SIGTERM stops accepting, lets in-flight answers finish, and exits 0.
@Suite struct ShutdownTests {
    private static func config(latencyMs: Int, drainDelaySeconds: Int = 0) -> String {
        """
        {"listen":{"address":"127.0.0.1","port":0},"server":{"shutdownGraceSeconds":20,"drainDelaySeconds":\(drainDelaySeconds)},
         "mock":{"port":0,"latencyMs":\(latencyMs)},
         "routes":[{"name":"r","upstream":"http://127.0.0.1:9/","pagination":{"scheme":"page-number"},
                    "forwardHeaders":["Authorization"],"retries":0}]}
        """
    }

    /// A mock upstream in this test process, so that the test can read its request record.
    private static func startMock(latency: Duration = .zero, gate: MockReleaseGate? = nil) throws -> (MockUpstream, Server) {
        var options = SchemeRoutes.mockOptions
        options.latency = latency
        options.releaseGate = gate
        let mock = MockUpstream(options: options)
        let server = try Server(
            address: SocketAddress(host: "127.0.0.1", port: 0), limits: ServerLimits(), responder: MockHTTPResponder(mock: mock),
            logger: Logger(level: .error))
        return (mock, server)
    }

    @Test("SIGTERM lets a slow aggregate finish whole, refuses new connections after the drain delay, and exits 0")
    func sigtermDrainsGracefully() async throws {
        // The mock holds its answers until the test lets them go: the walk is in flight when the signal arrives.
        let gate = MockReleaseGate()
        let (mock, mockServer) = try Self.startMock(gate: gate)
        let config = """
            {"listen":{"address":"127.0.0.1","port":0},"server":{"shutdownGraceSeconds":20,"drainDelaySeconds":0},
             "routes":[{"name":"slow","upstream":"http://127.0.0.1:\(mockServer.port)/slack/items",
                        "pagination":{"scheme":"cursor","pageSize":10},"items":"members"}]}
            """
        let proxy = try await ProxyProcess(config: config)
        let client = try await RawHTTPClient.connect(port: proxy.port)
        try await client.send(RawHTTPClient.requestText("/slow?mock_total=100"))
        try await poll("the walk has started") { mock.log.count >= 1 }
        proxy.signal(SIGTERM)
        _ = try await proxy.waitForLogLine { $0.contains("\"msg\":\"listener closed\"") }
        // New connections are refused once the listener has closed.
        await #expect(throws: SocketError.self) {
            _ = try await RawHTTPClient.connect(port: proxy.port)
        }
        // The drain waits for the walk, which goes on now.
        gate.open()
        let response = try await client.readResponse()
        #expect(response.status == 200)
        #expect(response.body == MockDataset.mergedJSON(total: 100))
        #expect(response.header("Connection") == "close")
        #expect(try await proxy.waitForExit() == 0)
        #expect(proxy.logLines.last?.contains("\"msg\":\"stopped\"") == true)
        await mockServer.stop(grace: .zero)
    }

    @Test("SIGHUP, SIGUSR1 and SIGUSR2 are logged and ignored: the proxy goes on answering (attack11 L6)")
    func hangUpAndUserSignalsAreIgnored() async throws {
        let proxy = try await ProxyProcess(config: Self.config(latencyMs: 0))
        for signal in [SIGHUP, SIGUSR1, SIGUSR2] {
            proxy.signal(signal)
            _ = try await proxy.waitForLogLine { $0.contains("\"msg\":\"signal ignored\"") && $0.contains("\"signal\":\(signal)") }
        }
        let health = try await RawHTTPClient.connect(port: proxy.port).request("/healthz")
        #expect(health.status == 200)
        proxy.signal(SIGTERM)
        #expect(try await proxy.waitForExit() == 0)
    }

    @Test("a second signal stops at once, without waiting for the grace period")
    func secondSignalStopsAtOnce() async throws {
        // The first page is held until the end of the test: only the second signal can end the walk.
        let gate = MockReleaseGate()
        let (mock, mockServer) = try Self.startMock(gate: gate)
        let config = """
            {"listen":{"address":"127.0.0.1","port":0},"server":{"shutdownGraceSeconds":600},
             "routes":[{"name":"slow","upstream":"http://127.0.0.1:\(mockServer.port)/slack/items",
                        "pagination":{"scheme":"cursor","pageSize":10},"items":"members"}]}
            """
        let proxy = try await ProxyProcess(config: config)
        let client = try await RawHTTPClient.connect(port: proxy.port)
        try await client.send(RawHTTPClient.requestText("/slow?mock_total=10000"))
        try await poll("the walk has started") { mock.log.count >= 1 }
        proxy.signal(SIGTERM)
        _ = try await proxy.waitForLogLine { $0.contains("\"msg\":\"draining\"") }
        proxy.signal(SIGTERM)
        // The walk is held and 600 s of grace are left: only the second signal ends it now.
        #expect(try await proxy.waitForExit(limit: .seconds(20)) == 1)
        gate.open()
        await mockServer.stop(grace: .zero)
    }

    @Test("past the grace period, an answer stuck on a stalled upstream page is cut and the process still exits 0")
    func gracePeriodBoundsTheDrain() async throws {
        let (mock, mockServer) = try Self.startMock(latency: .zero)
        let config = """
            {"listen":{"address":"127.0.0.1","port":0},"server":{"shutdownGraceSeconds":1,"drainDelaySeconds":0},
             "routes":[{"name":"stuck","upstream":"http://127.0.0.1:\(mockServer.port)/slack/items",
                        "pagination":{"scheme":"cursor","pageSize":10},"items":"members","retries":0}]}
            """
        let proxy = try await ProxyProcess(config: config)
        let client = try await RawHTTPClient.connect(port: proxy.port)
        try await client.send(RawHTTPClient.requestText("/stuck?mock_total=100&mock_fault=stall@2"))
        try await poll("page 2 is stalled") { mock.log.count >= 2 }
        proxy.signal(SIGTERM)
        // The stalled page would hold the answer for the page timeout (30 s); the grace period is 1 s.
        #expect(try await proxy.waitForExit(limit: .seconds(20)) == 0)
        #expect(await client.isClosedByServer())
        await mockServer.stop(grace: .zero)
    }

    @Test("after SIGTERM the process still accepts connections during the drain delay, and /readyz answers 503")
    func sigtermKeepsAcceptingDuringTheDrainDelay() async throws {
        let proxy = try await ProxyProcess(config: Self.config(latencyMs: 0, drainDelaySeconds: 3600))
        proxy.signal(SIGTERM)
        _ = try await proxy.waitForLogLine { $0.contains("\"msg\":\"draining\"") && $0.contains("\"drain_delay_seconds\":3600") }
        let ready = try await RawHTTPClient.connect(port: proxy.port).request("/readyz")
        #expect(ready.status == 503)
        #expect(ready.text.contains("\"reason\":\"draining\""))
        #expect(try await RawHTTPClient.connect(port: proxy.port).request("/healthz").status == 200)
        // An hour's delay is ended only by a second signal, which exits at once.
        proxy.signal(SIGTERM)
        #expect(try await proxy.waitForExit() == 1)
    }

    @Test("SIGINT with no terminal (a supervisor's) drains as SIGTERM does, /readyz 503 during the delay (review24 P3)")
    func sigintWithNoTerminalKeepsTheDrainDelay() async throws {
        // The test's child has /dev/null for standard input: no terminal.
        let proxy = try await ProxyProcess(config: Self.config(latencyMs: 0, drainDelaySeconds: 3600))
        proxy.signal(SIGINT)
        _ = try await proxy.waitForLogLine { $0.contains("\"msg\":\"draining\"") && $0.contains("\"drain_delay_seconds\":3600") }
        #expect(try await RawHTTPClient.connect(port: proxy.port).request("/readyz").status == 503)
        proxy.signal(SIGINT)
        #expect(try await proxy.waitForExit() == 1)
    }

    @Test("Ctrl-C at a terminal skips the drain delay; SIGTERM and a SIGINT with no terminal keep it")
    func drainDelayBySignal() {
        let configured = Duration.seconds(5)
        #expect(ServeCommand.drainDelay(after: SIGINT, configured: configured, atTerminal: true) == .zero)
        #expect(ServeCommand.drainDelay(after: SIGINT, configured: configured, atTerminal: false) == configured)
        #expect(ServeCommand.drainDelay(after: SIGTERM, configured: configured, atTerminal: true) == configured)
        #expect(ServeCommand.drainDelay(after: SIGTERM, configured: configured, atTerminal: false) == configured)
    }

    @Test func everyLogLineIsJSON() async throws {
        let proxy = try await ProxyProcess(config: Self.config(latencyMs: 0))
        let client = try await RawHTTPClient.connect(port: proxy.port)
        _ = try await client.request("/healthz?token=hunter2")
        // A forwarded credential and a secret query value reach neither the log nor the error body.
        let failed = try await client.request("/r?access_token=hunter2", headers: ["Authorization": "Bearer hunter2"])
        #expect(failed.status == 502)
        #expect(!failed.text.contains("hunter2"))
        #expect(failed.text.contains("access_token=REDACTED"))
        _ = try await client.request("/nope")
        _ = try await proxy.waitForLogLine { $0.contains("/nope") }
        proxy.signal(SIGTERM)
        #expect(try await proxy.waitForExit() == 0)
        for line in proxy.logLines {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any], "\(line)")
            #expect(!line.contains("hunter2"))
        }
        #expect(proxy.logLines.contains { $0.contains("\"route\":\"r\"") && $0.contains("\"error\":\"upstream_unreachable\"") })
    }
}

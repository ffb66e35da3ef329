import Foundation
import PageProxyCore
import Testing

@testable import PageProxy

/// DESIGN.md "Operation", in the order Kubernetes needs: on SIGTERM `/readyz` answers 503 while connections are
/// still accepted and served for `server.drainDelaySeconds`; only then does the listener close and the drain begin.
@Suite struct DrainDelayTests {
    private static func config(drainDelaySeconds: Int) -> String {
        """
        {"listen":{"address":"127.0.0.1","port":0},"server":{"shutdownGraceSeconds":5,"drainDelaySeconds":\(drainDelaySeconds)},
         "mock":{"port":0},
         "routes":[{"name":"r","upstream":"http://127.0.0.1:9/","pagination":{"scheme":"page-number"},"retries":0}]}
        """
    }

    @Test("during the drain delay a new connection is accepted, /readyz answers 503 and /healthz 200")
    func drainDelayKeepsAccepting() async throws {
        // A delay far longer than the test: only the second signal ends it.
        let proxy = try await ProxyProcess(config: Self.config(drainDelaySeconds: 600))
        #expect(try await RawHTTPClient.connect(port: proxy.port).request("/readyz").status == 200)
        proxy.signal(SIGTERM)
        let draining = try await proxy.waitForLogLine { $0.contains("\"msg\":\"draining\"") }
        #expect(draining.contains("\"drain_delay_seconds\":600"))
        let client = try await RawHTTPClient.connect(port: proxy.port)
        let ready = try await client.request("/readyz")
        #expect(ready.status == 503)
        #expect(ready.text == "{\"status\":\"not_ready\",\"reason\":\"draining\"}\n")
        // Still served, on the same kept-alive connection.
        #expect(try await client.request("/healthz").status == 200)
        #expect(!proxy.logLines.contains { $0.contains("\"msg\":\"closing listener\"") })
        proxy.signal(SIGTERM)
        #expect(try await proxy.waitForExit() == 1)
    }

    @Test("after the drain delay the listener closes, then the process drains and exits 0")
    func drainDelayEndsInAnOrderlyStop() async throws {
        let proxy = try await ProxyProcess(config: Self.config(drainDelaySeconds: 1))
        proxy.signal(SIGTERM)
        #expect(try await proxy.waitForExit() == 0)
        let messages = proxy.logLines.compactMap { line -> String? in
            guard let range = line.range(of: #""msg":"[^"]+""#, options: .regularExpression) else { return nil }
            return String(line[range].dropFirst(7).dropLast())
        }
        #expect(Array(messages.suffix(3)) == ["draining", "closing listener", "stopped"])
    }

    @Test("in process: once draining begins, /readyz is 503 on a new connection while routes still answer")
    func beginDrainingKeepsServing() async throws {
        try await TestStack.run { stack in
            stack.app.beginDraining()
            #expect(try await stack.get("/readyz").status == 503)
            let response = try await stack.get("/github?mock_total=3")
            #expect(response.status == 200)
            #expect(response.header("Connection") == nil)
        }
    }
}

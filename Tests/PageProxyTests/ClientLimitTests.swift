import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// Slow, idle and surplus clients are dealt with quickly and never block the others.
@Suite struct ClientLimitTests {
    @Test("a client that starts a request and stalls gets a 408 and is closed")
    func stalledRequestHeadGetsA408() async throws {
        try await TestStack.run(configure: { $0.server.headerTimeout = .seconds(1) }) { stack in
            let slow = try await stack.client()
            try await slow.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
            // Another client is served while the slow one stalls.
            #expect(try await stack.get("/healthz").status == 200)
            let response = try await slow.readResponse()
            #expect(response.status == 408)
            #expect(response.text.contains("\"code\":\"request_timeout\""))
            #expect(await slow.isClosedByServer())
        }
    }

    @Test("an idle keep-alive connection is closed without a response")
    func idleConnectionIsClosedSilently() async throws {
        try await TestStack.run(configure: { $0.server.idleTimeout = .seconds(1) }) { stack in
            let client = try await stack.client()
            #expect(try await client.request("/healthz").status == 200)
            let rest = try await client.readUntilClose()
            #expect(rest.isEmpty)
        }
    }

    @Test("a client that connects and sends nothing is let go after the header timeout, not the idle timeout")
    func silentNewConnectionGetsTheHeaderTimeout() async throws {
        try await TestStack.run(configure: {
            $0.server.headerTimeout = .seconds(1)
            $0.server.idleTimeout = .seconds(600)
        }) { stack in
            let silent = try await stack.client()
            // RawHTTPClient reads for at most 30 s: only the 1 s header timeout can close the connection in time.
            let rest = try await silent.readUntilClose()
            #expect(rest.isEmpty)
            try await poll("the slot is free again") { stack.app.server.openConnections == 0 }
        }
    }

    @Test("a client that never reads its answer blocks no one else")
    func neverReadingClientBlocksNoOne() async throws {
        // The stuck client must outlive the test on a loaded machine (`openConnections` below): the write timeout, 30 s by
        // default, is not its subject (flake23: MemoBoundEndToEndTests' stalled clients were cut so, in a 206 s test).
        try await TestStack.run(configure: { $0.server.sendBufferBytes = 16 * 1024; $0.server.writeTimeout = .seconds(3600) }) { stack in
            // About 1 MB of NDJSON that this client will never read: its socket buffers fill, and its walk pauses.
            let stuck = try await stack.client(receiveBufferBytes: 4096)
            try await stuck.send(RawHTTPClient.requestText("/github?mock_total=5000&_format=ndjson"))
            try await pollUntilSteady("the stuck answer's walk has paused", samples: 20) { stack.mock.log.count }
            #expect(stack.mock.log.count < 500, "the walk paused before the end")
            // Meanwhile everyone else is served, aggregates included.
            #expect(try await stack.get("/healthz").status == 200)
            let other = try await stack.get("/github?mock_total=30")
            #expect(other.status == 200)
            let whole = other.body == MockDataset.mergedJSON(total: 30)
            #expect(whole, "the other client's answer is whole")
            #expect(stack.app.server.openConnections >= 1)
        }
    }

    @Test("many idle keep-alive connections do not stop a new client from being served")
    func idleConnectionsDoNotStarveNewOnes() async throws {
        // The silent connections must outlive the test on a loaded machine: the header timeout is not its subject.
        try await TestStack.run(configure: { $0.server.maxConnections = 256; $0.server.headerTimeout = .seconds(3600) }) { stack in
            var idle: [RawHTTPClient] = []
            for _ in 0..<200 {
                let client = try await stack.client()
                idle.append(client)
            }
            // Twenty are served once and then wait, keep-alive, between requests; the rest are connected and silent.
            for client in idle.prefix(20) {
                #expect(try await client.request("/healthz").status == 200)
            }
            try await poll("all 200 connections are open") { stack.app.server.openConnections == 200 }
            #expect(try await stack.get("/healthz").status == 200)
            #expect(try await stack.get("/github?mock_total=25").status == 200)
            withExtendedLifetime(idle) {}
        }
    }

    @Test("past the connection cap, a new client gets a quick 503 and the others carry on")
    func overCapacityClientGetsA503() async throws {
        try await TestStack.run(configure: { $0.server.maxConnections = 2 }) { stack in
            let first = try await stack.client()
            let second = try await stack.client()
            #expect(try await first.request("/healthz").status == 200)
            #expect(try await second.request("/healthz").status == 200)
            let third = try await stack.client()
            let refused = try await third.readResponse()
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.text.contains("\"code\":\"too_many_connections\""))
            #expect(try await first.request("/healthz").status == 200)
        }
    }

    @Test("a request body is read and discarded, never parsed as the next request")
    func requestBodyIsNotTheNextRequest() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            let smuggled = "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
            try await client.send("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n" + smuggled)
            try await client.send(RawHTTPClient.requestText("/readyz"))
            #expect(try await client.readResponse().text == "{\"status\":\"ok\"}\n")
            #expect(try await client.readResponse().text == "{\"status\":\"ready\"}\n")
        }
    }

    @Test func contentLengthWithTransferEncodingIsRefused() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
            let response = try await client.readResponse()
            #expect(response.status == 400)
            #expect(response.text.contains("\"code\":\"conflicting_content_length_and_transfer_encoding\""))
            #expect(await client.isClosedByServer())
        }
    }

    @Test func unsupportedVersionIsA505() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send("GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n")
            #expect(try await client.readResponse().status == 505)
        }
    }
}

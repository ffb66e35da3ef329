import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// Issue 14: the shutdown's order (Kubernetes) and how an answer cut at the end of the grace period is logged.
@Suite struct DrainTests {
    @Test("during the drain delay /readyz is 503 while new connections are still accepted and served; then the listener closes")
    func drainDelayKeepsServingThenCloses() async throws {
        try await TestStack.run { stack in
            // An hour's delay: only cancelling the task ends it, so the test controls the order, not a clock.
            let shutdown = Task { await stack.app.shutdown(drainDelay: .seconds(3600), grace: .seconds(5)) }
            try await poll("readiness turns false") { stack.app.status.notReadyReason != nil }
            let ready = try await stack.get("/readyz")
            #expect(ready.status == 503)
            #expect(ready.text == "{\"status\":\"not_ready\",\"reason\":\"draining\"}\n")
            let served = try await stack.get("/github?mock_total=3")
            #expect(served.status == 200)
            #expect(served.body == MockDataset.mergedJSON(total: 3))
            // Clients are told to reconnect, to another replica once the load balancer has moved on.
            #expect(served.header("Connection") == "close")
            shutdown.cancel()
            await shutdown.value
            await #expect(throws: SocketError.self) {
                _ = try await stack.client()
            }
        }
    }

    @Test("an answer cut when the grace period ends is logged as shutdown_cut, not as an upstream failure", arguments: [
        "", "&_format=ndjson",
    ])
    func cutAnswerHasItsOwnCode(format: String) async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/slack?mock_total=100&mock_fault=stall@2" + format))
            try await poll("page 2 is stalled") { stack.mock.log.count >= 2 }
            await stack.app.stop(grace: .zero)
            #expect(await client.isClosedByServer())
            try await poll("the request is logged") { stack.logs.lines.contains { $0.contains("\"path\":\"/slack") } }
            let line = stack.logs.lines.first { $0.contains("\"path\":\"/slack") } ?? ""
            #expect(line.contains("\"error\":\"shutdown_cut\""), "\(line)")
            #expect(!line.contains("upstream_connection_lost"))
            #expect(!line.contains("client_left"), "the shutdown closed the socket, not the client: \(line)")
            // The merged answer's 502 never left (the shutdown's 503 did); the stream's 200 did.
            #expect(line.contains(format.isEmpty ? "\"status\":503" : "\"status\":200"), "\(line)")
        }
    }

    @Test("a stream cut when the grace period ends: its last line is the shutdown's error line, and it has no last chunk")
    func cutStreamEndsWithErrorLine() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/slack?mock_total=100&mock_fault=stall@2&_format=ndjson"))
            // Page 1's lines have left before the cut: the stream has begun.
            _ = try await client.readUntil("\n{")
            try await poll("page 2 is stalled") { stack.mock.log.count >= 2 }
            await stack.app.stop(grace: .zero)
            let raw = try await client.readUntilClose()
            #expect(String(decoding: raw.prefix(200), as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
            let body = try ChunkedBody.decode(raw.bodyAfterHead)
            #expect(!body.isComplete, "the stream must not end with the last chunk")
            let lines = body.data.split(separator: UInt8(ascii: "\n")).map(Array.init)
            let items = MockDataset.items(total: 100)
            #expect(!lines.dropLast().isEmpty)
            #expect(Array(lines.dropLast()) == Array(items.prefix(lines.count - 1)), "page 1's items, whole, in order")
            let last = String(decoding: lines.last ?? [], as: UTF8.self)
            #expect(last.hasPrefix(StreamFailureLine.marker + "{\"error\":{\"code\":\"shutdown_cut\""), "\(last)")
            #expect(last.contains("the server stopped before the answer was complete"))
            #expect(!body.data.contains(subsequence: Array("upstream_connection_lost".utf8)))
            try await poll("the request is logged") { stack.logs.lines.contains { $0.contains("\"path\":\"/slack") } }
            let line = stack.logs.lines.first { $0.contains("\"path\":\"/slack") } ?? ""
            #expect(line.contains("\"error\":\"shutdown_cut\""), "\(line)")
            #expect(line.contains("\"abort_reason\":\"shutdown_cut\""), "\(line)")
        }
    }

    @Test("a merged answer not begun when the grace period ends is a 503 shutting_down with Retry-After, not an empty reply")
    func cutMergedAnswerIsA503() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/slack?mock_total=100&mock_fault=stall@2"))
            try await poll("page 2 is stalled") { stack.mock.log.count >= 2 }
            await stack.app.stop(grace: .zero)
            let response = try await client.readResponse()
            #expect(response.status == 503)
            #expect(response.header("Retry-After") == "1")
            #expect(response.header("Connection") == "close")
            #expect(response.text.contains("\"code\":\"shutting_down\""), "\(response.text)")
            #expect(await client.isClosedByServer())
            try await poll("the request is logged") { stack.logs.lines.contains { $0.contains("\"path\":\"/slack") } }
            let line = stack.logs.lines.first { $0.contains("\"path\":\"/slack") } ?? ""
            #expect(line.contains("\"status\":503"), "\(line)")
            #expect(line.contains("\"error\":\"shutdown_cut\""), "\(line)")
        }
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// DESIGN.md "Outputs": NDJSON streams as pages arrive, and a stream that lost a page never ends cleanly.
@Suite struct StreamingTests {
    @Test("the first NDJSON line arrives before the mock has been asked for the last page")
    func firstLineArrivesBeforeTheLastPageIsRequested() async throws {
        var options = SchemeRoutes.mockOptions
        options.latency = .milliseconds(20)
        try await TestStack.run(mockOptions: options) { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/slack?mock_total=250&_format=ndjson"))
            let received = try await client.readUntil("}\n")
            #expect(received.contains(subsequence: MockDataset.item(0) + [UInt8(ascii: "\n")]))
            #expect(stack.mock.log.count < 25)
        }
    }

    @Test("a failure on page K yields the items before K, an error line, and no terminating chunk")
    func failureMidStreamEndsWithErrorLineAndNoLastChunk() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/slack?mock_total=100&_format=ndjson&mock_fault=status500@3"))
            let raw = try await client.readUntilClose()
            let head = String(decoding: raw.prefix(200), as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
            let body = try ChunkedBody.decode(raw.bodyAfterHead)
            #expect(!body.isComplete, "the stream must not end with the last chunk")
            let lines = body.data.split(separator: UInt8(ascii: "\n")).map(Array.init)
            #expect(Array(lines.dropLast()) == MockDataset.items(total: 20))
            let last = String(decoding: lines.last ?? [], as: UTF8.self)
            #expect(last.hasPrefix(StreamFailureLine.marker + "{\"error\":{\"code\":\"upstream_status\""))
            #expect(last.contains("\"page\":3"))
            #expect(last.contains("\"upstream_status\":500"))
        }
    }

    @Test("a failure on the first page is an ordinary error response")
    func failureOnFirstPageIsAnErrorStatus() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/slack?mock_total=100&_format=ndjson&mock_fault=status500@1")
            #expect(response.status == 502)
            #expect(response.text.contains("\"code\":\"upstream_status\""))
        }
    }

    @Test("a client that disconnects mid-stream stops the upstream requests")
    func disconnectStopsUpstreamRequests() async throws {
        var options = SchemeRoutes.mockOptions
        options.latency = .milliseconds(5)
        try await TestStack.run(mockOptions: options) { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/slack?mock_total=10000&_format=ndjson"))
            _ = try await client.readUntil("}\n")
            client.socket.close()
            try await poll("the proxy closes the connection") { stack.app.server.openConnections == 0 }
            try await poll("no upstream request stays in flight") { stack.mock.log.inFlight == 0 }
            // 1,000 pages were there to fetch; the walk stopped soon after the client left.
            #expect(stack.mock.log.count < 1000)
        }
    }

    @Test("an auto route's walk stops when its client leaves during the first page")
    func disconnectStopsAnAutoWalkOnItsFirstPage() async throws {
        var auto = SchemeRoutes.all[8]
        auto.name = "auto-slack"
        auto.configure = { $0.pagination = .auto(itemsPath: nil) }
        // The upstream holds the first page until the test lets it go: the client leaves while it waits.
        let upstream = MockReleaseGate()
        var options = SchemeRoutes.mockOptions
        options.releaseGate = upstream
        try await TestStack.run(routes: [auto], mockOptions: options) { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/auto-slack?mock_total=100"))
            try await poll("the first page's request reaches the upstream") { upstream.waiting == 1 }
            client.socket.close()
            // Without the watch armed, the walk waited out the page's timeout (30 s) and its retries (attack14 H2).
            try await poll("the proxy lets the connection go", limit: .seconds(10)) { stack.app.server.openConnections == 0 }
            upstream.open()
            #expect(stack.mock.log.count == 1)
        }
    }
}

extension StreamingTests {
    @Test("a client that disconnects while an upstream page stalls is let go at once")
    func disconnectDuringAStalledPageCancelsTheWalk() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/slack?mock_total=100&_format=ndjson&mock_fault=stall@2"))
            _ = try await client.readUntil("}\n")
            try await poll("page 2 is requested") { stack.mock.log.count == 2 }
            client.socket.close()
            // Without the disconnect watcher the proxy would wait for the stalled page (30 s page timeout).
            try await poll("the proxy lets the connection go", limit: .seconds(10)) { stack.app.server.openConnections == 0 }
            #expect(stack.mock.log.count == 2)
        }
    }

    @Test("a HEAD for NDJSON is answered after the first page, and the walk stops there")
    func headForNDJSONFetchesOnePage() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/github?mock_total=100&_format=ndjson", method: "HEAD"))
            let response = try await client.readResponse(method: .head)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/x-ndjson")
            #expect(response.body.isEmpty)
            // Ten pages exist; at most the first and the window the walker had launched with it were asked for.
            try await poll("no upstream request stays in flight") { stack.mock.log.inFlight == 0 }
            #expect(stack.mock.log.count <= 1 + 4)
        }
    }

    @Test("a HEAD for NDJSON carries its GET's framing: Content-Length for an answer complete before its first byte, chunked for a stream (before: a HEAD was always chunked; attack13)",
          arguments: [5, 100])
    func headForNDJSONHasItsGETsHead(total: Int) async throws {
        try await TestStack.run { stack in
            let target = "/github?mock_total=\(total)&_format=ndjson"
            let get = try await stack.get(target)
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText(target, method: "HEAD"))
            let head = try await client.readResponse(method: .head)
            #expect(get.status == 200 && head.status == 200)
            #expect(head.body.isEmpty)
            for name in ["Content-Length", "Transfer-Encoding", "Content-Type"] {
                #expect(head.header(name) == get.header(name), "\(name)")
            }
            if total == 5 { #expect(head.header("Content-Length") == String(get.body.count)) }
            if total == 100 { #expect(get.header("Transfer-Encoding") == "chunked") }
        }
    }

    @Test("a merged answer's walk stops when its client leaves")
    func disconnectStopsAMergedWalk() async throws {
        var options = SchemeRoutes.mockOptions
        options.latency = .milliseconds(5)
        try await TestStack.run(mockOptions: options) { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/slack?mock_total=10000"))
            try await poll("the walk has started") { stack.mock.log.count >= 3 }
            client.socket.close()
            try await poll("the proxy lets the connection go", limit: .seconds(10)) { stack.app.server.openConnections == 0 }
            try await poll("no upstream request stays in flight") { stack.mock.log.inFlight == 0 }
            #expect(stack.mock.log.count < 1000)
        }
    }
}

/// Decodes a chunked body and says whether it ended with the last chunk.
struct ChunkedBody {
    var data: [UInt8] = []
    var isComplete = false

    struct Malformed: Error {}

    static func decode(_ raw: [UInt8]) throws -> ChunkedBody {
        var result = ChunkedBody()
        var index = 0
        while index < raw.count {
            guard let lineEnd = raw[index...].firstIndex(of: UInt8(ascii: "\n")) else { return result }
            let sizeText = String(decoding: raw[index..<lineEnd], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let size = Int(sizeText, radix: 16) else { throw Malformed() }
            if size == 0 {
                result.isComplete = true
                return result
            }
            let start = lineEnd + 1
            guard start + size <= raw.count else {
                result.data += raw[start...]
                return result
            }
            result.data += raw[start..<start + size]
            index = start + size + 2
        }
        return result
    }
}

/// Polls `condition` until it holds, for at most `limit` (bounded: never a hang, never a fixed sleep).
func poll(_ what: String, limit: Duration = .seconds(20), _ condition: () async -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("timed out waiting until \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

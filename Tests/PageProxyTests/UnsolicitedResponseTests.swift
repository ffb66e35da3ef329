import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack17 L2 end to end: an upstream that writes a second, unsolicited response on its kept-alive connections.
@Suite struct UnsolicitedResponseTests {
    /// A stack whose one route (`plain`) walks `StrayResponseUpstream` with `habit`, the page cache on or off.
    private static func strayStack(
        _ habit: StrayResponseUpstream.Habit, cache: Bool = true, _ body: (TestStack, StrayResponseUpstream) async throws -> Void
    ) async throws {
        let mock = MockUpstream(options: SchemeRoutes.mockOptions)
        let upstream = try StrayResponseUpstream(mock: mock, habit: habit, pageSize: SchemeRoutes.pageSize)
        defer { upstream.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-stray-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let port = upstream.port
        var plain = SchemeRoutes.all[0]
        plain.configure = { config in
            config.upstream = UpstreamURL(
                text: "http://127.0.0.1:\(port)/plain/items", scheme: "http", host: "127.0.0.1", port: port, path: "/plain/items", query: nil)
        }
        try await TestStack.run(routes: [plain], configure: { if cache { $0.cache = CacheConfig(directory: root, maxBytes: 64 << 20) } }) { stack in
            try await body(stack, upstream)
        }
    }

    @Test("an upstream writing a stray 200 before each later answer on a kept connection never has it merged or cached: every answer is whole, first walk included, and one warning names the origin")
    func strayResponsesNeverBecomePages() async throws {
        try await Self.strayStack(.strayBeforeEachLaterAnswer) { stack, upstream in
            // Three walks that ask the upstream (five, four and three pages), then the first again, from the cache.
            for total in [45, 35, 25, 45] {
                let response = try await stack.get("/plain?mock_total=\(total)")
                #expect(response.status == 200, "total \(total): \(response.text)")
                #expect(!response.text.contains("FORGED"), "total \(total): \(response.text)")
                #expect(response.body == MockDataset.mergedJSON(total: total), "total \(total)")
            }
            // The habit was met (a kept connection was reused at least once), and told once.
            #expect(upstream.strays >= 1)
            let warnings = stack.logs.lines.filter { $0.contains("unsolicited response") }
            #expect(warnings.count == 1, "\(warnings)")
            #expect(warnings.first?.contains("http://127.0.0.1:\(upstream.port)") == true, "\(warnings)")
            // review26 M4: an operator sees it in /metrics too, beyond the one warning.
            let metrics = try await stack.get("/metrics").text
            #expect(metrics.contains("\npageproxy_upstream_origins_not_reused 1\n"), "\(metrics)")
        }
    }

    // stray19 (retest18's attack17 L2 remainder), `.strayCaughtAPageLater`: the stray is read as page 2, on a reused
    // connection that every check finds quiet; the origin is caught only at page 3's check-in. The walk must not answer
    // page 2 as read, nor keep it.

    @Test("stray19: a walk that read a page over a reused connection of an origin caught during it is walked again on new connections: whole, and nothing forged stored (the repeat and NDJSON from the cache are whole)")
    func aPageReadBeforeTheCatchIsNotAnsweredNorStored() async throws {
        try await Self.strayStack(.strayCaughtAPageLater) { stack, upstream in
            let first = try await stack.get("/plain?mock_total=45")
            // The habit was met: a stray was read as a page (and a page later caught).
            #expect(upstream.strays == 1)
            #expect(first.status == 200, "\(first.text.prefix(300))")
            #expect(!first.text.contains("FORGED"))
            #expect(first.body == MockDataset.mergedJSON(total: 45))
            let again = try await stack.get("/plain?mock_total=45")
            #expect(again.status == 200 && again.body == MockDataset.mergedJSON(total: 45), "\(again.text.prefix(300))")
            let lines = try await stack.get("/plain?mock_total=45&_format=ndjson")
            #expect(lines.status == 200 && lines.body == MockDataset.ndjson(total: 45), "\(lines.text.prefix(300))")
            #expect(stack.logs.lines.filter { $0.contains("unsolicited response") }.count == 1)
        }
    }

    @Test("stray19: the same with the cache off: the walk that meets the stray answers the whole list")
    func aPageReadBeforeTheCatchIsNotAnsweredWithTheCacheOff() async throws {
        try await Self.strayStack(.strayCaughtAPageLater, cache: false) { stack, upstream in
            let first = try await stack.get("/plain?mock_total=45")
            #expect(upstream.strays == 1)
            #expect(first.status == 200 && first.body == MockDataset.mergedJSON(total: 45), "\(first.text.prefix(300))")
        }
    }

    @Test("stray19: an NDJSON stream under way when the origin is caught ends with upstream_unsolicited_response, not as a whole list")
    func anNDJSONStreamUnderWayFailsHonestly() async throws {
        try await Self.strayStack(.strayCaughtAPageLater) { stack, upstream in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText("/plain?mock_total=45&_format=ndjson", headers: ["Connection": "close"]))
            let raw = try await client.readUntilClose()
            let text = String(decoding: raw, as: UTF8.self)
            #expect(upstream.strays == 1)
            // Either the stream ends with the failure line (and no last chunk), or it was walked again before its head: whole.
            if text.contains("upstream_unsolicited_response") {
                if text.hasPrefix("HTTP/1.1 200") {
                    #expect(try !ChunkedBody.decode(raw.bodyAfterHead).isComplete, "the stream must not end with the last chunk")
                }
            } else {
                let isChunked = text.lowercased().contains("transfer-encoding: chunked")
                let stream = isChunked ? try ChunkedBody.decode(raw.bodyAfterHead) : ChunkedBody(data: raw.bodyAfterHead, isComplete: true)
                #expect(text.hasPrefix("HTTP/1.1 200") && stream.isComplete && stream.data == MockDataset.ndjson(total: 45), "\(text.prefix(600))")
            }
            // Nothing forged was kept: the same request again is whole.
            let again = try await stack.get("/plain?mock_total=45&_format=ndjson")
            #expect(again.status == 200 && again.body == MockDataset.ndjson(total: 45), "\(again.text.prefix(300))")
        }
    }

    @Test("stray19's cost on a sane upstream: merged and NDJSON walks ask a page once each, over one kept connection, never walked again")
    func aSaneUpstreamPaysNothing() async throws {
        try await TestStack.run(routes: [SchemeRoutes.all[0]]) { stack in
            // The cache off (the stack's default): every walk asks every page; five pages a walk.
            for target in ["/plain?mock_total=45", "/plain?mock_total=45&_format=ndjson", "/plain?mock_total=45"] {
                let response = try await stack.get(target)
                #expect(response.status == 200, "\(response.text.prefix(300))")
            }
            #expect(stack.mock.log.count == 15)
            #expect(stack.app.transport.pool.connectionsOpened == 1)
            #expect(stack.app.transport.pool.originsNotReused == 0)
        }
    }
}

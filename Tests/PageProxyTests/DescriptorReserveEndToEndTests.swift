import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack13 H2: a `serve` process loaded with more clients than it has descriptors stays up. Out of descriptors,
/// libdispatch's worker monitor crashes the process, so sockets stay below a line under the open-file limit
/// (`DescriptorReserve`): past it a client gets the quick 503 and an upstream connection is not tried (a 503, not a 502
/// that blames the upstream).
@Suite struct DescriptorReserveEndToEndTests {
    @Test("A serve process with 128 descriptors and 150 clients answers what fits, refuses the rest with 503s, and serves after")
    func moreClientsThanDescriptors() async throws {
        // Every page takes 2 s: the clients' walks overlap, each holding its client's and its upstream's descriptors.
        var options = SchemeRoutes.mockOptions
        options.latency = .seconds(2)
        let mock = MockUpstream(options: options)
        let mockServer = try Server(
            address: SocketAddress(host: "127.0.0.1", port: 0), limits: ServerLimits(), responder: MockHTTPResponder(mock: mock),
            logger: Logger(level: .error))
        let config = """
            {"listen":{"address":"127.0.0.1","port":0},"cache":{"maxBytes":0},
             "routes":[{"name":"slow","upstream":"http://127.0.0.1:\(mockServer.port)/slack/items",
                        "pagination":{"scheme":"cursor","pageSize":10},"items":"members","ttlSeconds":0}]}
            """
        let proxy = try await ProxyProcess(config: config, openFileLimit: 128)

        // One walk first: the first contact with an origin is made alone.
        let first = try await RawHTTPClient.connect(port: proxy.port)
        #expect(try await first.request("/slow?mock_total=10").status == 200)

        let clients = 150
        let port = proxy.port
        let statuses = await withTaskGroup(of: Int.self) { group in
            for index in 0..<clients {
                group.addTask {
                    do {
                        let client = try await RawHTTPClient.connect(port: port)
                        // Distinct queries: each walk its own, none collapsed into another, each holding an upstream connection.
                        try await client.send(RawHTTPClient.requestText("/slow?mock_total=10&client=\(index)"))
                        return try await client.readResponse().status
                    } catch {
                        return 0  // refused: closed before an answer could be read
                    }
                }
            }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(proxy.process.isRunning)
        // What fits is answered whole; the rest is refused (503 or closed), never blamed on the upstream (502).
        #expect(statuses.contains(200))
        #expect(statuses.allSatisfy { [200, 503, 0].contains($0) }, "statuses: \(Dictionary(grouping: statuses) { $0 }.mapValues(\.count))")
        // And the process serves normally afterwards.
        let after = try await RawHTTPClient.connect(port: proxy.port)
        let answer = try await after.request("/slow?mock_total=20")
        #expect(answer.status == 200)
        #expect(answer.body == MockDataset.mergedJSON(total: 20))
        #expect(try await after.request("/healthz").status == 200)
        #expect(proxy.process.isRunning)
        // The default cap of 1,024 connections cannot fit 128 descriptors: lowered at start, with one line naming both.
        let warnings = proxy.logLines.filter { $0.contains("maxConnections lowered") }
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("\"maxConnections\":1024") == true)
        #expect(warnings.first?.contains("\"open_file_limit\":128") == true)
        await mockServer.stop(grace: .zero)
    }

    @Test("An upstream connection the process has no descriptor for is a 503 naming the open-file limit, and not retried")
    func outOfDescriptorsIsA503() throws {
        let failure = UpstreamError.outOfDescriptors(origin: "http://127.0.0.1:9")
        #expect(!failure.isRetryable)
        let url = try #require(PageURL(string: "http://127.0.0.1:9/items"))
        let response = PaginationErrorResponse(.upstreamFailed(page: 1, url: url, error: failure), route: "r")
        #expect(response.status == .serviceUnavailable)
        #expect(response.code == "proxy_out_of_descriptors")
        #expect(response.message.contains("limit of open files"))
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// An NDJSON walk through entries read from their files (after a restart) sends the first page's lines at once, alone,
/// before it reads the next pages' files: the client's first byte does not wait for a batch of reads (issue 13,
/// fourteenth pass: the head left with the first 256 KiB, a dozen files read). A walk through entries in memory is still
/// answered whole, with its length, when its lines fit one write.
@Suite struct NDJSONFirstLinesTests {
    /// 40 pages of 10 items, known ahead from the first page's `rel="last"`: about 80 KB of lines, one write's worth.
    static let target = "/github?mock_total=400"

    /// The raw answer to `target` as NDJSON from the server on `port`.
    static func raw(port: Int) async throws -> [UInt8] {
        let client = try await RawHTTPClient.connect(port: port)
        try await client.send(RawHTTPClient.requestText(target, headers: ["Connection": "close", "Accept": "application/x-ndjson"]))
        return try await client.readUntilClose()
    }

    static func head(_ raw: [UInt8]) -> String {
        String(decoding: raw, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
    }

    @Test func afterARestartTheFirstPageLeavesAloneAndTheRestFollow() async throws {
        try await TestStack.runWithOwnCacheDirectory(routes: [SchemeRoutes.all[2]]) { stack, config in
            #expect(try await stack.get(Self.target, headers: ["Accept": "application/x-ndjson"]).status == 200)
            let restarted = try PageProxyApp.start(config: config, logger: Logger(level: .error))
            do {
                let store = try #require(restarted.pages.store)
                let raw = try await Self.raw(port: restarted.server.port)
                #expect(store.fileReadCount > 0)
                #expect(Self.head(raw).contains("Transfer-Encoding: chunked"))
                let chunks = try InPlaceCacheWalkTests.chunks(raw)
                // The first chunk is the first page's lines alone; every line is there once, in order.
                #expect(chunks.first == MockDataset.ndjson(total: SchemeRoutes.pageSize))
                #expect(chunks.count >= 2)
                #expect(chunks.flatMap { $0 } == MockDataset.ndjson(total: 400))
                // A merged walk keeps every entry in memory (`CachePolicy.keepsFirstRead`); the NDJSON walk after it
                // reads no file, and its lines, at hand together, are one answer with its length.
                #expect(try await RawHTTPClient.connect(port: restarted.server.port).request(Self.target).status == 200)
                let reads = store.fileReadCount
                let warm = try await Self.raw(port: restarted.server.port)
                #expect(store.fileReadCount == reads)
                let body = MockDataset.ndjson(total: 400)
                #expect(Self.head(warm).contains("\r\nContent-Length: \(body.count)"))
                #expect(Array(warm.suffix(body.count)) == body)
            } catch {
                await restarted.stop(grace: .seconds(5))
                throw error
            }
            await restarted.stop(grace: .seconds(5))
        }
    }
}

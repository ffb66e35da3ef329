import Foundation
import Glibc
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A walk through the cache reads fresh pages in place (no task per page, issue 13), and still counts them, sends
/// torn entries to the upstream and leaves `no-cache` to the upstream; NDJSON, which the memo never answers.
@Suite struct InPlaceCacheWalkTests {
    static let target = CacheTests.target + "&_format=ndjson"

    /// An NDJSON walk's raw answer, with the cache outcome as a trailer.
    static func ndjson(_ stack: TestStack, headers: [String: String] = [:]) async throws -> String {
        let client = try await stack.client()
        try await client.send(RawHTTPClient.requestText(target, headers: headers.merging(["Connection": "close", "TE": "trailers"]) { $1 }))
        return String(decoding: try await client.readUntilClose(), as: UTF8.self)
    }

    static func trailer(_ raw: String) -> String? {
        raw.components(separatedBy: "\r\n").last { $0.hasPrefix("PageProxy-Cache: ") }?.dropFirst("PageProxy-Cache: ".count).description
    }

    static func items(_ raw: String) -> Int {
        raw.components(separatedBy: "{\"id\":").count - 1
    }

    @Test func aWalkOfFreshPagesIsCountedAndAsksNothing() async throws {
        try await CacheTests.run { stack, _ in
            _ = try await Self.ndjson(stack)
            stack.mock.log.reset()
            let warm = try await Self.ndjson(stack)
            #expect(Self.trailer(warm) == "hits=5 misses=0 revalidated=0 stale=0 bypassed=0")
            #expect(Self.items(warm) == 50)
            #expect(stack.mock.log.count == 0)
            let metrics = try await stack.get("/metrics").text
            #expect(metrics.contains("pageproxy_cache_pages_total{route=\"github\",outcome=\"hit\"} 5"))
        }
    }

    @Test func aTornEntryGoesToTheUpstreamTheOthersAreHits() async throws {
        try await CacheTests.run { stack, root in
            _ = try await Self.ndjson(stack)
            stack.mock.log.reset()
            let files = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".entry") }
            #expect(files.count == 5)
            #expect(truncate(root + "/" + files[0], 50) == 0)
            let walked = try await Self.ndjson(stack)
            #expect(Self.trailer(walked) == "hits=4 misses=1 revalidated=0 stale=0 bypassed=0")
            #expect(Self.items(walked) == 50)
            #expect(stack.mock.log.count == 1)
        }
    }

    @Test func noCacheRevalidatesEveryPageInsteadOfReadingInPlace() async throws {
        try await CacheTests.run { stack, _ in
            _ = try await Self.ndjson(stack)
            stack.mock.log.reset()
            let fresh = try await Self.ndjson(stack, headers: ["Cache-Control": "no-cache"])
            #expect(Self.trailer(fresh) == "hits=0 misses=0 revalidated=5 stale=0 bypassed=0")
            #expect(stack.mock.log.count == 5)
        }
    }

    @Test("pages all at hand whose lines fit one write: one answer with Content-Length, framed exactly")
    func linesOfPagesAllAtHandHaveALength() async throws {
        // The memo off: an NDJSON walk's answer is kept on disk once written (h13-replay19), and a repeat that found it
        // would be sent from the file, not by the walk this test pins.
        try await CacheTests.run(memoBytes: 0) { stack, _ in
            let target = "/github?mock_total=50&_format=ndjson"
            _ = try await stack.get(target)
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText(target, headers: ["Connection": "close"]))
            let raw = try await client.readUntilClose()
            let head = String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
            let body = MockDataset.ndjson(total: 50)
            #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(head.contains("\r\nContent-Length: \(body.count)") && !head.contains("Transfer-Encoding"))
            #expect(Array(raw.suffix(body.count)) == body && raw.count == head.utf8.count + 4 + body.count)
        }
    }

    /// The data of each chunk of a chunked answer, read from the raw bytes by hand (not by PageProxy's parser).
    static func chunks(_ raw: [UInt8]) throws -> [[UInt8]] {
        let text = raw
        func find(_ needle: [UInt8], from start: Int) -> Int? {
            guard text.count >= needle.count else { return nil }
            return (start...(text.count - needle.count)).first { Array(text[$0..<$0 + needle.count]) == needle }
        }
        var position = try #require(find([13, 10, 13, 10], from: 0)) + 4
        var chunks: [[UInt8]] = []
        while true {
            let lineEnd = try #require(find([13, 10], from: position))
            let size = try #require(Int(String(decoding: text[position..<lineEnd], as: UTF8.self), radix: 16))
            if size == 0 { return chunks }
            chunks.append(Array(text[(lineEnd + 2)..<(lineEnd + 2 + size)]))
            position = lineEnd + 2 + size + 2
        }
    }

    @Test("the lines of pages at hand leave in few writes, at most 256 KiB each, framed exactly", arguments: [1500])
    func linesOfPagesAtHandAreBatched(total: Int) async throws {
        try await CacheTests.run(route: { $0.maxPages = 1000 }, memoBytes: 0) { stack, _ in  // memo off: as above
            let target = "/github?mock_total=\(total)&_format=ndjson"
            _ = try await stack.get(target)
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText(target, headers: ["Connection": "close"]))
            let chunks = try Self.chunks(try await client.readUntilClose())
            let pages = total / SchemeRoutes.pageSize
            #expect(chunks.flatMap { $0 } == MockDataset.ndjson(total: total))
            #expect(chunks.allSatisfy { $0.count <= NDJSONAnswerRenderer.batchBytes })
            #expect(chunks.count < pages / 2)
            #expect(chunks.allSatisfy { $0.last == 0x0A })
        }
    }
}

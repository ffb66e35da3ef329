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
}

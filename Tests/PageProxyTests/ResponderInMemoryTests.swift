import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// PageProxy's responder run in memory (no socket: a `MemoryResponseSink` and the mock upstream in process), its
/// answers read back by an independent byte-level reader; the live-socket tests cover the same paths end to end.
@Suite struct ResponderInMemoryTests {
    @Test func healthAnswersWithNoRouteInTheRecord() async throws {
        let answer = try await InMemoryProxy().request("/healthz")
        #expect(answer.response.status == 200)
        #expect(answer.response.text == "{\"status\":\"ok\"}\n")
        #expect(answer.response.header("Content-Length") == String(answer.response.body.count))
        #expect(answer.record == RequestRecord())
        #expect(answer.keepsAlive)
    }

    @Test func unknownRouteIsA404WhoseCodeTheRecordNames() async throws {
        let answer = try await InMemoryProxy().request("/nope")
        #expect(answer.response.status == 404)
        #expect(answer.response.header("Content-Type") == "application/json; charset=utf-8")
        #expect(answer.response.text.hasPrefix("{\"error\":{\"code\":\"unknown_route\""))
        #expect(answer.record.error == "unknown_route")
        #expect(answer.record.route == nil)
    }

    @Test func otherMethodsAreA405WithAllow() async throws {
        let answer = try await InMemoryProxy().request("/github", method: .post)
        #expect(answer.response.status == 405)
        #expect(answer.response.header("Allow") == "GET, HEAD")
        #expect(answer.record.error == "method_not_allowed")
    }

    @Test func aBadControlIsA400NamingTheControlAndTheRoute() async throws {
        let answer = try await InMemoryProxy().request("/github?_max_pages=0")
        #expect(answer.response.status == 400)
        #expect(answer.response.text.contains("\"control\":\"_max_pages\""))
        #expect(answer.record.error == "invalid_control")
        #expect(answer.record.route == "github")
    }

    @Test func aMergedAnswerCarriesEveryItemAndTheRecordCountsPagesAndItems() async throws {
        let answer = try await InMemoryProxy().request("/github?mock_total=25")
        #expect(answer.response.status == 200)
        #expect(answer.response.isComplete)
        #expect(answer.response.trailing.isEmpty)
        // The mock's items hold 1e400, which JSONSerialization refuses: the array's framing is checked instead.
        #expect(answer.response.body.first == UInt8(ascii: "[") && answer.response.text.hasSuffix("]"))
        #expect(answer.response.header("PageProxy-Items") == "25")
        #expect(answer.response.header("PageProxy-Pages") == "3")
        #expect(answer.record.route == "github")
        #expect(answer.record.pages == 3)
        #expect(answer.record.items == 25)
        #expect(answer.record.cache == "hits=0 misses=0 revalidated=0 stale=0 bypassed=3")
        #expect(answer.record.error == nil)
    }

    /// Issue 13: a page whose items lie in its body as one compact run (`[a,b,c]`) is not copied into the answer.
    @Test("a merged answer is its pages' own items sent as they lie, in one write; HEAD and caps alike")
    func aMergedAnswerOfOnePageIsSentFromThePage() async throws {
        let proxy = InMemoryProxy()
        let page = await proxy.mock.respond(
            to: MockRequest(method: "GET", target: "/plain/items?page=1&mock_total=7", headers: [(name: "Host", value: "127.0.0.1:9")])
        ).body
        let answer = try await proxy.request("/plain?mock_total=7")
        #expect(answer.response.status == 200)
        #expect(answer.response.body == page, "the upstream's compact array, byte for byte")
        #expect(answer.response.header("Content-Length") == String(page.count))
        #expect(answer.writes == 1 && answer.sliceWrites == 1)
        let head = try await proxy.request("/plain?mock_total=7", method: .head)
        #expect(head.response.body.isEmpty && head.response.header("Content-Length") == String(page.count))
        #expect(head.response.header("ETag") == answer.response.header("ETag"))
        // `_max_items`: the first three items, as the old copy made them.
        let capped = try await proxy.request("/plain?mock_total=7&_max_items=3")
        let items = try #require(try? JSONScanner().scan(page, itemsAt: .root).items)
        var expected: [UInt8] = [UInt8(ascii: "[")]
        for (index, item) in items.prefix(3).enumerated() {
            if index > 0 { expected.append(UInt8(ascii: ",")) }
            JSONScanner.appendItem(item, of: page, to: &expected)
        }
        expected.append(UInt8(ascii: "]"))
        #expect(capped.response.body == expected)
        #expect(capped.response.header("ETag") != answer.response.header("ETag"))
        // A client that holds the answer gets a 304 with the length its GET would have had.
        let etag = try #require(answer.response.header("ETag"))
        let notModified = try await proxy.request("/plain?mock_total=7", headers: [("If-None-Match", etag)])
        #expect(notModified.response.status == 304 && notModified.response.header("Content-Length") == String(page.count))
        // Two pages (and more) are sent from the pages too: `[`, the first page's items, `,`, the second's, `]`.
        let twoPages = try await proxy.request("/plain?mock_total=15")
        var second: [UInt8] = []
        for number in 1...2 {
            let body = await proxy.mock.respond(
                to: MockRequest(method: "GET", target: "/plain/items?page=\(number)&mock_total=15", headers: [(name: "Host", value: "127.0.0.1:9")])
            ).body
            second += (number == 1 ? [UInt8(ascii: "[")] : [UInt8(ascii: ",")]) + body.dropFirst().dropLast()
        }
        #expect(twoPages.response.body == second + [UInt8(ascii: "]")])
        #expect(twoPages.writes == 1 && twoPages.sliceWrites == 1 && twoPages.response.header("PageProxy-Items") == "15")
    }

    @Test func anNDJSONAnswerEndsWithTheLastChunk() async throws {
        let answer = try await InMemoryProxy().request("/slack?mock_total=25&_format=ndjson")
        #expect(answer.response.status == 200)
        #expect(answer.response.header("Transfer-Encoding") == "chunked")
        #expect(answer.response.isComplete)
        #expect(answer.response.text.split(separator: "\n").count == 25)
        #expect(answer.record.pages == 3)
        #expect(answer.record.items == 25)
    }

    @Test("an NDJSON answer's head leaves with its first lines and its last lines with the last chunk: one write a page")
    func anNDJSONAnswerTakesOneWriteAPage() async throws {
        let single = try await InMemoryProxy().request("/slack?mock_total=7&_format=ndjson")
        #expect(single.response.isComplete)
        #expect(single.response.text.split(separator: "\n").count == 7)
        #expect(single.writes == 1)
        #expect(single.response.header("Content-Length") == String(single.response.body.count))
        let three = try await InMemoryProxy().request("/slack?mock_total=25&_format=ndjson")
        #expect(three.response.isComplete)
        #expect(three.response.text.split(separator: "\n").count == 25)
        #expect(three.writes == 3)
        // No page at all: the head and the last chunk, still one write.
        let empty = try await InMemoryProxy().request("/slack?mock_total=0&_format=ndjson")
        #expect(empty.response.status == 200)
        #expect(empty.response.isComplete)
        #expect(empty.response.body.isEmpty)
        #expect(empty.writes == 1)
    }

    @Test("an NDJSON walk complete before its first byte is one answer with Content-Length; HEAD and TE: trailers stream")
    func anNDJSONWalkCompleteBeforeItsFirstByteHasALength() async throws {
        let proxy = InMemoryProxy()
        // One page, the last: nothing can fail after the status line, so the answer states its length.
        let single = try await proxy.request("/slack?mock_total=7&_format=ndjson")
        #expect(single.response.status == 200)
        #expect(single.response.header("Transfer-Encoding") == nil)
        #expect(single.response.header("Content-Length") == String(single.response.body.count))
        #expect(single.response.body == MockDataset.ndjson(total: 7))
        #expect(single.response.header("Content-Type") == "application/x-ndjson")
        #expect(single.writes == 1 && single.keepsAlive)
        #expect(single.record.pages == 1 && single.record.items == 7)
        // No page at all: an empty answer of length 0.
        let empty = try await proxy.request("/slack?mock_total=0&_format=ndjson")
        #expect(empty.response.status == 200 && empty.response.header("Content-Length") == "0")
        // Pages still to be fetched: the first page's lines leave before the last page arrives, streamed.
        let three = try await proxy.request("/slack?mock_total=25&_format=ndjson")
        #expect(three.response.header("Transfer-Encoding") == "chunked" && three.response.header("Content-Length") == nil)
        // A client that asked for trailers gets them, on a stream.
        let trailers = try await proxy.request("/slack?mock_total=7&_format=ndjson", headers: [("TE", "trailers")])
        #expect(trailers.response.header("Transfer-Encoding") == "chunked")
        #expect(trailers.response.body == MockDataset.ndjson(total: 7))
        // A HEAD gets its GET's head, its length included (RFC 9110 §9.3.2; attack13: it was chunked), and no body.
        let head = try await proxy.request("/slack?mock_total=7&_format=ndjson", method: .head)
        #expect(head.response.status == 200 && head.response.header("Transfer-Encoding") == nil)
        #expect(head.response.header("Content-Length") == single.response.header("Content-Length"))
        #expect(head.response.body.isEmpty)
        let headOfStream = try await proxy.request("/slack?mock_total=25&_format=ndjson", method: .head)
        #expect(headOfStream.response.header("Transfer-Encoding") == "chunked" && headOfStream.response.body.isEmpty)
    }

    @Test("a held head leaves with the first write, even of no lines (a walk about to wait has sent its status)")
    func aHeldHeadLeavesWithTheFirstWrite() async throws {
        let sink = MemoryResponseSink()
        let request = HTTPRequestHead(method: .get, target: "/", headers: ["Host": "x"])
        let writer = ResponseWriter(sink: sink, request: request, keepsAlive: true, writeTimeout: .seconds(5))
        try await writer.beginStream(.ok, holdingHead: true)
        #expect(sink.writes == 0)
        try await writer.writeStreamed([])
        #expect(sink.writes == 1)
        #expect(String(decoding: sink.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK\r\n"))
        try await writer.writeStreamed([])
        #expect(sink.writes == 1)
        try await writer.endStream(last: Array("x\n".utf8))
        #expect(sink.writes == 2)
        #expect(String(decoding: sink.bytes, as: UTF8.self).hasSuffix("\r\n\r\n2\r\nx\n\r\n0\r\n\r\n"))
    }

    @Test func aLaterPageThatFailsEndsTheStreamWithTheFailureLineAndNoLastChunk() async throws {
        let answer = try await InMemoryProxy().request("/slack?mock_total=30&_format=ndjson&mock_fault=status500@2")
        #expect(answer.response.status == 200)
        #expect(!answer.response.isComplete)
        let last = answer.response.text.split(separator: "\n").last.map(String.init) ?? ""
        #expect(last.hasPrefix(StreamFailureLine.marker + "{\"error\":{\"code\":\"upstream_status\""))
        #expect(answer.record.error == "upstream_status")
        #expect(answer.record.pages == 1)
        #expect(!answer.keepsAlive)
    }

    @Test func aFirstPageThatFailsIsAnErrorStatus() async throws {
        let answer = try await InMemoryProxy().request("/github?mock_total=30&mock_fault=status500@1")
        #expect(answer.response.status == 502)
        #expect(answer.record.error == "upstream_status")
        #expect(answer.response.text.contains("\"route\":\"github\""))
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// review17 B4: an NDJSON answer cut by the client's `_max_items` / `_max_pages` (or the route's `maxItems`) says
/// `PageProxy-Truncated: true`, as a merged one does: in its head when the cut is known as the head leaves, else as a
/// trailer to a client that takes trailers. Before, only merged answers said it: an NDJSON client could not tell a cap
/// from the end of the list.
@Suite struct NDJSONTruncatedTests {
    @Test("a cap known when the head leaves is in the head; no cap, no field")
    func aCapKnownAtTheHead() async throws {
        try await TestStack.run { stack in
            let items = try await stack.get("/plain?mock_total=95&_max_items=5&_format=ndjson")
            #expect(items.status == 200)
            #expect(items.text.split(separator: "\n").count == 5)
            #expect(items.header("PageProxy-Truncated") == "true")
            // A total numbers every page at the first: `_max_pages` cuts them there.
            let pages = try await stack.get("/wrapped?mock_total=95&_max_pages=2&_format=ndjson")
            #expect(pages.text.split(separator: "\n").count == 20)
            #expect(pages.header("PageProxy-Truncated") == "true")
            let whole = try await stack.get("/plain?mock_total=95&_format=ndjson")
            #expect(whole.text.split(separator: "\n").count == 95)
            #expect(whole.header("PageProxy-Truncated") == nil)
        }
    }

    @Test("a cap met after the head left is a trailer to a client that says TE: trailers")
    func aCapMetLaterIsATrailer() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            // Next links number one page at a time: the cap is met at the second page, after the head.
            try await client.send(
                RawHTTPClient.requestText("/drf-pages?mock_total=95&_max_pages=2&_format=ndjson", headers: ["Connection": "close", "TE": "trailers"]))
            let raw = String(decoding: try await client.readUntilClose(), as: UTF8.self)
            #expect(raw.contains("\r\nTrailer: PageProxy-Cache, PageProxy-Stale, PageProxy-Truncated\r\n"))
            #expect(raw.contains("\r\n0\r\n") && raw.contains("PageProxy-Truncated: true\r\n"), "\(raw.suffix(300))")
        }
    }

    @Test("a cap the head told is not told again as a trailer (review18 R6: a client merging trailers got it twice)")
    func aCapToldInTheHeadIsNoTrailer() async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(
                RawHTTPClient.requestText("/wrapped?mock_total=95&_max_pages=2&_format=ndjson", headers: ["Connection": "close", "TE": "trailers"]))
            let raw = String(decoding: try await client.readUntilClose(), as: UTF8.self)
            let head = raw.components(separatedBy: "\r\n\r\n").first ?? ""
            #expect(head.contains("\r\nTrailer: PageProxy-Cache, PageProxy-Stale, PageProxy-Truncated\r\n"), "\(head)")
            #expect(head.contains("\r\nPageProxy-Truncated: true\r\n"), "\(head)")
            #expect(raw.components(separatedBy: "PageProxy-Truncated: true\r\n").count == 2, "\(head)…\(raw.suffix(200))")
        }
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// real18 F5, F6: an NDJSON window's head leaves before its walk ends, and its `rel="next"` never points past an item
/// the stream did not send: not at the window's end when the client's `_max_pages` may cut the walk before it (the
/// `next` the walk earned is a trailer to a client that takes trailers), and not at all for a window with no end
/// (`_offset` alone) unless a cap ends it.
@Suite struct NDJSONWindowNextTests {
    /// The `_offset`/`_limit` of `link`'s `rel="next"` target, nil without one.
    static func next(_ link: String?) -> String? {
        guard let link, let range = link.range(of: ">; rel=\"next\"") else { return nil }
        let target = link[..<range.lowerBound]
        return target.components(separatedBy: "?").last
            .map { $0.split(separator: "&").filter { $0.hasPrefix("_offset=") || $0.hasPrefix("_limit=") }.joined(separator: "&") }
    }

    /// Windows `_max_pages=2` cuts, cold: a route following next links (no page count), and one whose total numbers the
    /// pages at the first (the cut is known then, but the head still leaves before the last page). The stream holds
    /// items 15 … (its last item − 1); before, the head linked on at the window's end, 45.
    static let cutWindows: [(target: String, through: Int)] = [
        ("/drf-pages?mock_total=450&_offset=15&_limit=30&_max_pages=2&_format=ndjson", 20),
        ("/wrapped?mock_total=450&_offset=15&_limit=30&_max_pages=2&_format=ndjson", 30),
    ]

    @Test("a window _max_pages cuts after the head left: no next in the head (before: at the window's end, past items never sent)",
          arguments: cutWindows)
    func aCutWindowsHeadLinksNoNext(target: String, through: Int) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get(target)
            #expect(answer.status == 200)
            #expect(answer.text == CappedWindowTests.lines(offset: 15, count: through - 15), "\(answer.text.prefix(200))")
            #expect(Self.next(answer.header("Link")) == nil, "\(answer.header("Link") ?? "no Link")")
            #expect(answer.header("Link")?.contains("rel=\"prev\"") == true, "\(answer.header("Link") ?? "no Link")")
        }
    }

    @Test("to a client that takes trailers, the next the cut walk earned (after its last item) is a trailer the head announces",
          arguments: cutWindows)
    func aCutWindowsNextIsATrailer(target: String, through: Int) async throws {
        try await TestStack.run { stack in
            let client = try await stack.client()
            try await client.send(RawHTTPClient.requestText(target, headers: ["Connection": "close", "TE": "trailers"]))
            let raw = String(decoding: try await client.readUntilClose(), as: UTF8.self)
            let parts = raw.components(separatedBy: "\r\n0\r\n")
            let head = raw.components(separatedBy: "\r\n\r\n").first ?? ""
            #expect(head.contains("\r\nTrailer: PageProxy-Cache, PageProxy-Stale, PageProxy-Truncated, Link\r\n"), "\(head)")
            #expect(Self.next(head) == nil, "\(head)")
            #expect(parts.count == 2, "\(raw.suffix(300))")
            let trailerLink = parts.last?.components(separatedBy: "\r\n").first { $0.hasPrefix("Link: ") }
            #expect(trailerLink?.hasPrefix("Link: <") == true && trailerLink?.hasSuffix(">; rel=\"next\"") == true, "\(parts.last ?? "")")
            #expect(Self.next(trailerLink) == "_offset=\(through)&_limit=30", "\(parts.last ?? "")")
            #expect(parts.last?.contains("PageProxy-Truncated: true\r\n") == true, "\(parts.last ?? "")")
        }
    }

    @Test("a _max_pages that covers the window's pages cuts nothing: the head links on as before")
    func aCapCoveringTheWindowKeepsNext() async throws {
        try await TestStack.run { stack in
            // From page 2, the window 15–24 spans pages 2 and 3.
            let answer = try await stack.get("/wrapped?mock_total=450&_offset=15&_limit=10&_max_pages=5&_format=ndjson")
            #expect(answer.text == CappedWindowTests.lines(offset: 15, count: 10))
            #expect(Self.next(answer.header("Link")) == "_offset=25&_limit=10", "\(answer.header("Link") ?? "no Link")")
        }
    }

    @Test("a window with no limit runs to the end: no next (before: _offset=9223372036854775807), but a cap's end under _max_items")
    func aWindowWithNoLimitLinksOnOnlyAtACap() async throws {
        try await TestStack.run { stack in
            for format in ["ndjson", "json"] {
                let answer = try await stack.get("/drf-pages?mock_total=95&_offset=90&_format=\(format)")
                #expect(answer.header("Link") == "</drf-pages?mock_total=95&_format=\(format)&_offset=0>; rel=\"prev\"", "\(answer.header("Link") ?? "no Link")")
                let capped = try await stack.get("/drf-pages?mock_total=95&_offset=50&_max_items=3&_format=\(format)")
                #expect(Self.next(capped.header("Link")) == "_offset=53", "\(format): \(capped.header("Link") ?? "no Link")")
            }
            let lines = try await stack.get("/drf-pages?mock_total=95&_offset=90&_format=ndjson")
            #expect(lines.text == CappedWindowTests.lines(offset: 90, count: 5))
        }
    }
}

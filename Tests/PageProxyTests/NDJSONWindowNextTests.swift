import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// real18 F5, F6, real20 F4: an NDJSON window's `rel="next"` never points past an item the stream did not send: where
/// the client's `_max_pages` may cut the walk before the window's end, the head waits for the walk (up to a bound of
/// held lines; past it the head leaves `next` out, and the `next` the walk earned is a trailer to a client that takes
/// trailers), and a window with no end (`_offset` alone) has none unless a cap ends it.
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

    /// real20 F4: the head of such a window waits for the walk (its lines held, up to `cutHoldBytes`), so it links on
    /// where the cut walk ended and says the cap cut it, as the merged answer's head does: a client that follows
    /// `Link` and reads no trailers stopped at the cut (before: no `rel="next"`, no `PageProxy-Truncated` in the head).
    @Test("a window _max_pages cuts: the head waits for the walk, links on after the last item sent and says Truncated",
          arguments: cutWindows)
    func aCutWindowsHeadLinksOnAfterTheCut(target: String, through: Int) async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get(target)
            #expect(answer.status == 200)
            #expect(answer.text == CappedWindowTests.lines(offset: 15, count: through - 15), "\(answer.text.prefix(200))")
            #expect(Self.next(answer.header("Link")) == "_offset=\(through)&_limit=30", "\(answer.header("Link") ?? "no Link")")
            #expect(answer.header("Link")?.contains("rel=\"prev\"") == true, "\(answer.header("Link") ?? "no Link")")
            #expect(answer.header("PageProxy-Truncated") == "true", "\(answer.fields)")
            let merged = try await stack.get(target.replacingOccurrences(of: "&_format=ndjson", with: ""))
            #expect(Self.next(merged.header("Link")) == Self.next(answer.header("Link")), "\(merged.header("Link") ?? "no Link")")
        }
    }

    /// Past `cutHoldBytes` of lines the stream begins, and its head leaves `rel="next"` out as before (memory stays
    /// bounded: the held lines are the window's first megabyte at most).
    @Test("a cut window whose lines pass the held bound streams, its head with no next")
    func aLongCutWindowStreams() async throws {
        try await TestStack.run { stack in
            let answer = try await stack.get("/wrapped?mock_total=90000&per_page=1000&_offset=10&_limit=80000&_max_pages=60&_format=ndjson")
            #expect(answer.status == 200)
            try #require(answer.text.utf8.count > NDJSONAnswerRenderer.cutHoldBytes, "\(answer.text.utf8.count) bytes")
            // The items from 10 on, in order, up to where the cap cut the walk (short of the window's 80,000).
            let count = answer.text.utf8.count { $0 == UInt8(ascii: "\n") }
            #expect(count < 80_000)
            #expect(answer.text == CappedWindowTests.lines(offset: 10, count: count), "\(answer.text.suffix(200))")
            #expect(Self.next(answer.header("Link")) == nil, "\(answer.header("Link") ?? "no Link")")
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

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// review27 R2: an NDJSON walk's keeper (`NDJSONAnswerKeeper`) held its whole answer up to three times, charged to
/// nothing (one 32 MB walk peaked at 128 MB). What it holds is now charged to the memo's bound, its write's copies too,
/// and it keeps nothing when the memo has no room; one walk per entry at a time gathers the lines.
@Suite struct NDJSONAnswerKeeperBoundTests {
    /// Three pages of two items of ~1 KB each: ~6 KB of lines.
    static func threeKilobytePages(_ upstream: ChangingUpstream) -> (inout RouteConfig) -> Void {
        let long = String(repeating: "x", count: 1000)
        upstream.set(body: #"[{"p":{page},"s":"\#(long)"},{"p":{page},"t":"\#(long)"}]"#, cacheControl: "max-age=600")
        upstream.emptyPages(past: 3)
        return { route in
            var options = PaginationScheme.PageNumber()
            options.pageSize = 2
            route.pagination = .scheme(.pageNumber(options))
        }
    }

    @Test("an NDJSON walk whose lines fit half the memo but whose entry's write does not fit it keeps nothing, and streams every item; with room, the same walk keeps its entry")
    func aKeeperThatFindsNoRoomKeepsNothing() async throws {
        let upstream = try ChangingUpstream()
        let route = Self.threeKilobytePages(upstream)
        try await PersistedAnswerTests.withDirectory { directory in
            // 16 KiB: the ~6 KB of lines fit half of it (`accepts`, all the old keeper asked), the lines and the write's
            // two copies of them do not fit it.
            let refused = try await PersistedAnswerTests.run(upstream, directory: directory, memoBytes: 16 << 10, route: route) { stack in
                try await stack.get("/changing", headers: PersistedLinesTests.ndjson)
            }
            #expect(refused.status == 200)
            #expect(refused.text.split(separator: "\n").count == 6)
            #expect(refused.body.count > 6000 && refused.body.count < 8 << 10)
            // Before: written, its copies uncharged.
            #expect(PersistedAnswerTests.answerFiles(in: directory).isEmpty)
            // With room (64 KiB), the same walk's entry is written: what was refused was the room alone.
            let kept = try await PersistedAnswerTests.run(upstream, directory: directory, memoBytes: 64 << 10, route: route) { stack in
                try await stack.get("/changing", headers: PersistedLinesTests.ndjson)
            }
            #expect(kept.body == refused.body)
            try await poll("the answer's entry is written") { PersistedAnswerTests.answerFiles(in: directory).count == 1 }
        }
        await upstream.stop()
    }

    @Test("one walk at a time gathers an entry's lines: a second claim on its key is refused until the first is given back")
    func oneClaimPerEntry() throws {
        let claims = AnswerEntryClaims()
        let (one, other) = (try #require(CacheKey(hex: String(repeating: "a", count: 64))), try #require(CacheKey(hex: String(repeating: "b", count: 64))))
        var first = claims.claim(one)
        #expect(first != nil)
        #expect(claims.claim(one) == nil)
        let second = claims.claim(other)
        #expect(second != nil)
        #expect(claims.count == 2)
        first = nil
        #expect(claims.count == 1)
        #expect(claims.claim(one) != nil)
        withExtendedLifetime((first, second)) {}
    }
}

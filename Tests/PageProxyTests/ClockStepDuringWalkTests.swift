import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// loose18's leftover: a merged answer's `madeAt` was the walk's end, so a wall clock stepped back during the walk (NTP
/// correcting a fast clock) made an answer that looked made "now" on the new clock, beside a page stored before the
/// step, a day "ahead": the memo and the answer's entry sent it as fresh while that page, looked up alone, is
/// revalidated (`WallClockStep`). It is made at the later of the walk's start and end; an NDJSON walk's kept entry too
/// (review27 R1: it was stamped with the walk's end).
@Suite struct ClockStepDuringWalkTests {
    /// A proxy whose route walks two pages of one item, one at a time, the wall clock stepped a day back as page 2 is
    /// asked (page 1 stored before the step, the rest after it); `body` makes that first walk.
    private static func withAStepBackDuringTheFirstWalk(_ body: (TestStack, ChangingUpstream, String) async throws -> Void) async throws {
        let upstream = try ChangingUpstream()
        upstream.set(body: #"[{"v":1,"p":{page}}]"#, cacheControl: "max-age=600")
        upstream.emptyPages(past: 2)
        let wall = ManualWallClock()
        upstream.onPage { page in if page == 2 { wall.advance(seconds: -86_400) } }
        try await PersistedAnswerTests.withDirectory { directory in
            try await PersistedAnswerTests.run(upstream, directory: directory, clock: wall.clock, route: { route in
                var options = PaginationScheme.PageNumber()
                options.pageSize = 1
                route.pagination = .scheme(.pageNumber(options))
                // One page at a time: page 2 is asked only once page 1 is in.
                route.concurrency = 1
            }) { stack in try await body(stack, upstream, directory) }
        }
        await upstream.stop()
    }

    /// After the stepped walk: a merged request revalidates page 1 (one conditional request), not sent from the memo or an entry.
    private static func expectPageOneRevalidated(_ stack: TestStack, _ upstream: ChangingUpstream) async throws {
        upstream.onPage { _ in }
        upstream.resetLog()
        let again = try await stack.get("/changing")
        #expect(again.text == #"[{"v":1,"p":1},{"v":1,"p":2}]"#)
        // Before: answered from the memo (or the NDJSON walk's entry), no request at all.
        let asked = upstream.received
        #expect(asked.count == 1 && asked.first?.ifNoneMatch != nil, "page 1 revalidated: \(asked.map(\.target))")
        #expect(again.header("PageProxy-Cache")?.contains("revalidated=1") == true, "\(again.header("PageProxy-Cache") ?? "-")")
    }

    @Test("an answer whose walk met a wall clock stepped a day back is not sent from the memo or its entry: the page stored before the step is revalidated")
    func anAnswerMadeAcrossAStepBackIsNotUsed() async throws {
        try await Self.withAStepBackDuringTheFirstWalk { stack, upstream, _ in
            let walked = try await stack.get("/changing")
            #expect(walked.text == #"[{"v":1,"p":1},{"v":1,"p":2}]"#)
            try await Self.expectPageOneRevalidated(stack, upstream)
        }
    }

    @Test("an NDJSON walk across a wall clock stepped a day back keeps no entry a later request is sent from: the page stored before the step is revalidated (review27 R1)")
    func anNDJSONWalkAcrossAStepBackKeepsNoUsableEntry() async throws {
        try await Self.withAStepBackDuringTheFirstWalk { stack, upstream, directory in
            let walked = try await stack.get("/changing", headers: PersistedLinesTests.ndjson)
            #expect(walked.text == #"{"v":1,"p":1}"# + "\n" + #"{"v":1,"p":2}"# + "\n")
            // The keeper queues its entry's write as the walk ends, after the last bytes: polled (bounded, 20 s; was
            // 2 s, which a loaded machine could outlast) for it.
            try await poll("the NDJSON walk's answer entry is written") {
                await AnswerEntries.waitForWrites()
                return !PersistedAnswerTests.answerFiles(in: directory).isEmpty
            }
            #expect(PersistedAnswerTests.answerFiles(in: directory).count == 1)
            try await Self.expectPageOneRevalidated(stack, upstream)
        }
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyServer

/// loose18's leftover: a merged answer's `madeAt` was the walk's end, so a wall clock stepped back during the walk (NTP
/// correcting a fast clock) made an answer that looked made "now" on the new clock, beside a page stored before the
/// step, a day "ahead": the memo and the answer's entry sent it as fresh while that page, looked up alone, is
/// revalidated (`WallClockStep`). It is made at the later of the walk's start and end.
@Suite struct ClockStepDuringWalkTests {
    @Test("an answer whose walk met a wall clock stepped a day back is not sent from the memo or its entry: the page stored before the step is revalidated")
    func anAnswerMadeAcrossAStepBackIsNotUsed() async throws {
        let upstream = try ChangingUpstream()
        upstream.set(body: #"[{"v":1,"p":{page}}]"#, cacheControl: "max-age=600")
        upstream.emptyPages(past: 2)
        let wall = ManualWallClock()
        // A day back as page 2 is asked: page 1 was stored before the step, the rest after it.
        upstream.onPage { page in if page == 2 { wall.advance(seconds: -86_400) } }
        try await PersistedAnswerTests.withDirectory { directory in
            try await PersistedAnswerTests.run(upstream, directory: directory, clock: wall.clock, route: { route in
                var options = PaginationScheme.PageNumber()
                options.pageSize = 1
                route.pagination = .scheme(.pageNumber(options))
                // One page at a time: page 2 is asked only once page 1 is in.
                route.concurrency = 1
            }) { stack in
                let walked = try await stack.get("/changing")
                #expect(walked.text == #"[{"v":1,"p":1},{"v":1,"p":2}]"#)
                upstream.onPage { _ in }
                upstream.resetLog()
                let again = try await stack.get("/changing")
                #expect(again.status == 200)
                #expect(again.text == walked.text)
                // Before: answered from the memo, no request at all.
                let asked = upstream.received
                #expect(asked.count == 1 && asked.first?.ifNoneMatch != nil, "page 1 revalidated: \(asked.map(\.target))")
                #expect(again.header("PageProxy-Cache")?.contains("revalidated=1") == true, "\(again.header("PageProxy-Cache") ?? "-")")
            }
        }
        await upstream.stop()
    }

    @Test("an NDJSON walk across a wall clock stepped a day back keeps no entry a later request is sent from: the page stored before the step is revalidated (review27 R1)")
    func anNDJSONWalkAcrossAStepBackKeepsNoUsableEntry() async throws {
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
                route.concurrency = 1
            }) { stack in
                let walked = try await stack.get("/changing", headers: PersistedLinesTests.ndjson)
                #expect(walked.text == #"{"v":1,"p":1}"# + "\n" + #"{"v":1,"p":2}"# + "\n")
                // The keeper queues its entry's write as the walk ends, after the last bytes: polled (bounded) for it.
                for _ in 0..<200 where PersistedAnswerTests.answerFiles(in: directory).isEmpty {
                    await AnswerEntries.waitForWrites()
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(PersistedAnswerTests.answerFiles(in: directory).count == 1)
                upstream.onPage { _ in }
                upstream.resetLog()
                let again = try await stack.get("/changing")
                #expect(again.text == #"[{"v":1,"p":1},{"v":1,"p":2}]"#)
                // Before: answered from the entry the NDJSON walk kept (made "now", after the step), no request at all.
                let asked = upstream.received
                #expect(asked.count == 1 && asked.first?.ifNoneMatch != nil, "page 1 revalidated: \(asked.map(\.target))")
                #expect(again.header("PageProxy-Cache")?.contains("revalidated=1") == true, "\(again.header("PageProxy-Cache") ?? "-")")
            }
        }
        await upstream.stop()
    }
}

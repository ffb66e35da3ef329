import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// DESIGN.md: memory stays bounded whatever clients do. The memo of merged answers counts every answer it lends for as
/// long as a request sends it (attack5 F1: clients that stopped reading each held a memo-sized answer, read back from
/// its spool or evicted meanwhile, and the process grew by one answer a client past `cache.memoBytes`).
@Suite struct MemoBoundEndToEndTests {
    static let memoBytes = 1 << 20
    /// About 300 KB each: memo-sized (at most half the bound), three of them already past it.
    static func total(_ index: Int) -> Int { 1400 + index }

    static func run(clock: PageProxyClock = .system, _ body: (TestStack) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-memobound-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var scheme = PaginationScheme.LinkHeader()
        scheme.pageSize = 100
        let route = TestStack.Route(name: "github", mockPath: "/github/items", scheme: .linkHeader(scheme))
        // Every answer past 64 KiB goes to its spool file, so the memo reads each one back (the path of F1).
        var spool = MergedSpool(directories: [NSTemporaryDirectory()], heldBytes: 0)
        spool.memoryBytes = 64 << 10
        try await TestStack.run(routes: [route], mockOptions: MockUpstreamOptions(), configure: { config in
            config.cache = CacheConfig(directory: root, maxBytes: 64 << 20, memoBytes: Self.memoBytes)
            config.server.sendBufferBytes = 16 << 10
            // The clients that stop reading must stay connected until the test reads them: under the 30 s default, a
            // run of all the suites at once (width 32, two CPU hogs: this test took 206 s) had the server cut them
            // (`closedBeforeResponse`), and the memo charged other answers meanwhile (flake23). An hour: a hang guard.
            config.server.writeTimeout = .seconds(3600)
        }, spool: spool, clock: clock, body)
    }

    static func memoCharge(_ stack: TestStack) async throws -> Int {
        let metrics = try PrometheusTextParser(try await stack.get("/metrics").text)
        return Int(try #require(metrics.value("pageproxy_memo_bytes")))
    }

    /// Scrapes until the memo's charge is `expected`, for at most 20 s.
    static func waitForMemoCharge(_ stack: TestStack, _ expected: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        var charged = try await memoCharge(stack)
        while charged != expected && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
            charged = try await memoCharge(stack)
        }
        #expect(charged == expected)
    }

    @Test("an answer that goes stale while a slow client reads it stays charged beside its successor until that client has it all")
    func aStaleAnswerBeingSentStaysCharged() async throws {
        let wall = ManualWallClock()
        try await Self.run(clock: wall.clock) { stack in
            let target = "/github?mock_total=\(Self.total(0))"
            let warm = try await stack.get(target)
            #expect(warm.body == MockDataset.mergedJSON(total: Self.total(0)))
            let kept = try await Self.memoCharge(stack)
            #expect(kept == warm.body.count + MergedAnswerMemo.measuredAnswerBytes)
            // A memo hit that stalls behind the socket buffers.
            let slow = try await stack.client(receiveBufferBytes: 4096)
            try await slow.send(RawHTTPClient.requestText(target))
            _ = try await slow.readUntil("\r\n\r\n")
            #expect(slow.received.contains(subsequence: Array("PageProxy-Cache: hits=".utf8)))
            // Its pages go stale: the next request drops the answer from the memo and keeps the one its walk makes.
            wall.advance(seconds: 3600)
            let again = try await stack.get(target)
            #expect(again.body == warm.body)
            #expect(try await Self.memoCharge(stack) == 2 * kept, "the dropped answer still being sent counts, beside its successor")
            let answer = try await slow.readResponse()
            #expect(answer.body == warm.body)
            // Its send has ended: its charge is given back.
            try await Self.waitForMemoCharge(stack, kept)
        }
    }

    @Test("an answer dropped while a client stalls on it is given back when that client leaves mid-answer")
    func aDroppedAnswerIsGivenBackWhenItsClientLeaves() async throws {
        let wall = ManualWallClock()
        try await Self.run(clock: wall.clock) { stack in
            let target = "/github?mock_total=\(Self.total(1))"
            _ = try await stack.get(target)
            let kept = try await Self.memoCharge(stack)
            let leaving = try await stack.client(receiveBufferBytes: 4096)
            try await leaving.send(RawHTTPClient.requestText(target))
            _ = try await leaving.readUntil("\r\n\r\n")
            wall.advance(seconds: 3600)
            _ = try await stack.get(target)
            #expect(try await Self.memoCharge(stack) == 2 * kept)
            // Unread bytes at close: the proxy's write fails at once, and the request lets its answer go.
            leaving.socket.close()
            try await Self.waitForMemoCharge(stack, kept)
        }
    }

    /// What an answer of `index` charges while anything holds it: its body and what it holds besides.
    static func charge(_ index: Int) -> Int { MockDataset.mergedJSON(total: total(index)).count + MergedAnswerMemo.measuredAnswerBytes }

    /// The page cache's lookups that found an entry, and its writes, so far: a walk counts its pages, a memo hit none.
    static func storeUses(_ stack: TestStack) -> UInt64 { stack.app.pages.store?.useCount ?? 0 }

    @Test("clients that stop reading distinct memo-sized answers hold only what the memo charged: three answers fill the bound, and the rest are sent without the memo (a memo hit, read-backs from spools); each answer is whole")
    func stalledReadersStayWithinTheMemoBound() async throws {
        try await Self.run { stack in
            // A memo hit first: answer 0 is memoized, then a client stops reading it while others need room.
            let warm = try await stack.get("/github?mock_total=\(Self.total(0))")
            #expect(warm.body == MockDataset.mergedJSON(total: Self.total(0)))
            let stalledCount = 8
            var stalled: [RawHTTPClient] = []
            for index in 0..<stalledCount {
                let client = try await stack.client(receiveBufferBytes: 4096)
                try await client.send(RawHTTPClient.requestText("/github?mock_total=\(Self.total(index))"))
                // Its head has arrived: its answer is being sent (and stalls behind the socket buffers).
                _ = try await client.readUntil("\r\n\r\n")
                stalled.append(client)
            }
            #expect(stalled[0].received.contains(subsequence: Array("PageProxy-Cache: hits=".utf8)))
            // Answers 0–2 (~900 KB) are charged while their clients hold them; a fourth would pass the 1 MiB bound, and
            // none of the three may be dropped to make room (their bytes stay held by the sends whatever the memo
            // does): answers 3–7 were sent from their spools, never read back into memory (attack5 F1).
            let held = (0..<3).map(Self.charge).reduce(0, +)
            #expect(held <= Self.memoBytes && held + Self.charge(3) > Self.memoBytes)
            #expect(try await Self.memoCharge(stack) == held)
            // Readers that keep up, on answers of their own, while the others hold theirs: walked, not memoized.
            for index in stalledCount..<(stalledCount + 4) {
                let answer = try await stack.get("/github?mock_total=\(Self.total(index))")
                #expect(answer.body == MockDataset.mergedJSON(total: Self.total(index)))
                #expect(try await Self.memoCharge(stack) == held)
            }
            // Answer 0 is still the memo's (no page read), answer 7 was never kept (its pages are read again).
            let uses = Self.storeUses(stack)
            #expect(try await stack.get("/github?mock_total=\(Self.total(0))").body == warm.body)
            #expect(Self.storeUses(stack) == uses, "answer 0 is answered by the memo")
            _ = try await stack.get("/github?mock_total=\(Self.total(7))")
            #expect(Self.storeUses(stack) > uses, "answer 7 is walked")
            for (index, client) in stalled.enumerated() {
                let answer = try await client.readResponse()
                #expect(answer.status == 200)
                #expect(answer.body == MockDataset.mergedJSON(total: Self.total(index)), "answer \(index)")
            }
            // Every send has ended: what the memo keeps stays charged (the three answers), nothing else.
            try await Self.waitForMemoCharge(stack, held)
        }
    }
}

import Testing
@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The request log: order, counts, in-flight tracking (counted, never timed).
@Suite struct MockRequestLogTests {
    @Test func recordsRequestsInOrder() async {
        let mock = MockUpstream()
        #expect(mock.log.count == 0)
        _ = await MockTestSupport.send(mock, "/plain/items?page=1")
        _ = await MockTestSupport.send(mock, "/nope", method: "POST")
        _ = await MockTestSupport.send(mock, "/github/items?page=2", method: "HEAD")
        #expect(mock.log.count == 3)
        #expect(mock.log.requests.map(\.target) == ["/plain/items?page=1", "/nope", "/github/items?page=2"])
        #expect(mock.log.requests.map(\.method) == ["GET", "POST", "HEAD"])
        #expect(mock.log.requests[0].header("host") == MockTestSupport.host)
        #expect(mock.log.inFlight == 0)
        #expect(mock.log.peakInFlight == 1)
        mock.log.reset()
        #expect(mock.log.count == 0)
        #expect(mock.log.requests.isEmpty)
        #expect(mock.log.peakInFlight == 0)
    }

    @Test("past its capacity the log keeps the latest requests and still counts them all")
    func logIsBounded() {
        let log = MockRequestLog(capacity: 10)
        for page in 1...25 {
            log.begin(MockRequest(target: "/plain/items?page=\(page)"))
            log.end()
        }
        #expect(log.count == 25)
        #expect(log.requests.count <= 10)
        #expect(log.requests.last?.target == "/plain/items?page=25")
        #expect(log.requests.map(\.target) == (26 - log.requests.count...25).map { "/plain/items?page=\($0)" })
    }

    @Test func sequentialRequestsPeakAtOne() async {
        let mock = MockUpstream()
        for page in 1...4 {
            _ = await MockTestSupport.send(mock, "/plain/items?page=\(page)&mock_latency_ms=20")
            #expect(mock.log.inFlight == 0)
        }
        #expect(mock.log.count == 4)
        #expect(mock.log.peakInFlight == 1)
    }

    /// The four requests are held at the mock's release gate until all four are in flight (flake23b: with 300 ms of
    /// latency instead, the check bet that a second task starts within 300 ms of the first, which a loaded machine
    /// can lose).
    @Test func concurrentRequestsOverlap() async throws {
        let gate = MockReleaseGate()
        var options = MockUpstreamOptions()
        options.releaseGate = gate
        let mock = MockUpstream(options: options)
        try await withThrowingTaskGroup(of: Int.self) { group in
            for page in 1...4 {
                group.addTask {
                    await MockTestSupport.send(mock, "/plain/items?page=\(page)").status
                }
            }
            try await poll("the four requests are in flight") { gate.waiting == 4 }
            #expect(mock.log.inFlight == 4)
            gate.open()
            for try await status in group {
                #expect(status == 200)
            }
        }
        #expect(mock.log.count == 4)
        #expect(mock.log.inFlight == 0)
        #expect(mock.log.peakInFlight == 4)
    }

    /// Each answer waits at least the options' latency (a lower bound: a sleep never ends early, and load only makes
    /// it longer). flake23b: the check was `peakInFlight > 1`, a bet that a second task starts within 300 ms.
    @Test func optionsLatencyAppliesToEveryRequest() async {
        let mock = MockUpstream(options: MockUpstreamOptions(latency: .milliseconds(300)))
        let clock = ContinuousClock()
        await withTaskGroup(of: Duration.self) { group in
            for service in [MockService.github, .slack, .stripe, .drf] {
                group.addTask { await clock.measure { _ = await MockTestSupport.send(mock, service.path) } }
            }
            for await took in group {
                #expect(took >= .milliseconds(300))
            }
        }
        #expect(mock.log.count == 4)
    }

    @Test func inFlightIsVisibleWhileWaiting() async throws {
        let mock = MockUpstream()
        let task = Task { await MockTestSupport.send(mock, "/plain/items?mock_fault=stall@1") }
        // Bounded by time, not by a count of sleeps (flake23b: 2,000 × 5 ms stretched under load).
        try await poll("the stalled request is in flight") { mock.log.inFlight > 0 }
        #expect(mock.log.inFlight == 1)
        #expect(mock.log.count == 1)
        task.cancel()
        _ = await task.value
        #expect(mock.log.inFlight == 0)
    }
}

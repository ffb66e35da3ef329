import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// `server.writeTimeoutSeconds` is how long a client may take none of its answer's bytes, not how long the whole
/// answer may take (attack5 F2: a 10.6 MB answer to a client reading at 200 KB/s was cut at 30 s every time).
@Suite struct SlowReaderTests {
    @Test("a client that keeps reading a merged answer slowly gets all of it, though it takes longer than the write timeout")
    func slowReaderIsNotCut() async throws {
        // A write timeout of 3 s, not 1: a client starved of CPU for a second (six CPU hogs on two cores) was cut. The
        // answer grows with it, so that it still takes longer than the timeout.
        let total = 9000
        let expected = MockDataset.mergedJSON(total: total)
        try #require(expected.count > 1_300_000, "the answer must take many slow reads")
        try await TestStack.run(configure: {
            $0.server.sendBufferBytes = 16 * 1024
            $0.server.writeTimeout = .seconds(3)
        }) { stack in
            let client = try await stack.client(receiveBufferBytes: 4 * 1024)
            let started = ContinuousClock.now
            try await client.send(RawHTTPClient.requestText("/plain?mock_total=\(total)"))
            // 8 KiB every 20 ms: ~400 KB/s, so the answer takes over three seconds, and no pause comes near them.
            while (try? RawResponseBytes(client.received, isHead: false, requireComplete: true)) == nil {
                guard try await client.readSome(maxBytes: 8 * 1024) > 0 else { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            let response = try await client.readResponse()
            #expect(response.status == 200)
            // Compared as one Bool: a failed `==` of two 1.8 MB arrays would have the test library diff them for minutes.
            let isWhole = response.body == expected
            #expect(isWhole, "got \(response.body.count) bytes of \(expected.count); starts \(String(decoding: response.body.prefix(80), as: UTF8.self))")
            // The test's own premise (not a speed claim): the answer took longer than the write timeout.
            try #require(ContinuousClock.now - started > .seconds(3))
        }
    }
}

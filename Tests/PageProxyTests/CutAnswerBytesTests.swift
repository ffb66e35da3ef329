import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// An answer cut mid-write is logged and counted with the bytes that left, not 0 (attack5 m1: a 10.6 MB answer cut
/// after 6.5 MB was logged `"bytes":0,"aborted":true`, as its one write never returned).
@Suite struct CutAnswerBytesTests {
    @Test("a client that leaves after 100 KB of a one-write answer is logged with the bytes that left")
    func aCutAnswerCountsWhatLeft() async throws {
        let total = 3000
        let length = MockDataset.mergedJSON(total: total).count
        try #require(length > 400_000, "the answer must outlast the socket buffers")
        try await TestStack.run(configure: { $0.server.sendBufferBytes = 16 * 1024 }) { stack in
            let client = try await stack.client(receiveBufferBytes: 4 * 1024)
            try await client.send(RawHTTPClient.requestText("/plain?mock_total=\(total)"))
            while client.received.count < 100_000 {
                guard try await client.readSome(maxBytes: 16 * 1024) > 0 else { break }
            }
            let taken = client.received.count
            try #require(taken >= 100_000)
            // Closed with bytes unread: a reset, and the proxy's write fails midway.
            client.socket.close()
            let isTheRequest = { (line: String) in line.contains("\"msg\":\"request\"") && line.contains("mock_total=\(total)") }
            try await poll("the request's log line") { stack.logs.lines.contains(where: isTheRequest) }
            let line = try #require(stack.logs.lines.first(where: isTheRequest))
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let bytes = try #require(fields["bytes"] as? Int)
            #expect(fields["aborted"] as? Bool == true)
            // attack15 U1: and why (a reset; a write that found the peer gone).
            #expect(fields["abort_reason"] as? String == "client_closed", "\(line)")
            // At least what the client read, at most the answer (the rest waited in the kernel's buffers or never left).
            #expect(bytes >= taken && bytes < length, "logged \(bytes) bytes; the client read \(taken) of \(length)")
            let metrics = try PrometheusTextParser(try await stack.get("/metrics").text)
            #expect((metrics.value("pageproxy_response_bytes_total") ?? 0) >= Double(taken))
        }
    }
}

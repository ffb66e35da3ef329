import Synchronization

@testable import PageProxyCore

/// An upstream in memory: answers with a closure, and records every request and the peak number in flight.
final class FakeTransport: UpstreamTransport {
    private struct Record {
        var urls: [String] = []
        var inFlight = 0
        var peakInFlight = 0
    }

    private let record = Mutex(Record())
    private let answer: @Sendable (PageURL) async throws(UpstreamError) -> UpstreamResponse

    init(answer: @escaping @Sendable (PageURL) async throws(UpstreamError) -> UpstreamResponse) {
        self.answer = answer
    }

    var requestedURLs: [String] { record.withLock { $0.urls } }
    var peakInFlight: Int { record.withLock { $0.peakInFlight } }
    /// How many requests have been sent and not answered yet.
    var inFlight: Int { record.withLock { $0.inFlight } }

    func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        record.withLock { record in
            record.urls.append(request.url.description)
            record.inFlight += 1
            record.peakInFlight = max(record.peakInFlight, record.inFlight)
        }
        defer { record.withLock { $0.inFlight -= 1 } }
        // Let other fetches start before this one answers, so that concurrency shows in the record.
        await Task.yield()
        return try await answer(request.url)
    }
}

extension UpstreamResponse {
    /// A 200 JSON response.
    static func json(_ text: String, headers: [(String, String)] = []) -> UpstreamResponse {
        var fields = HTTPHeaders()
        for (name, value) in headers { fields.add(name, value) }
        return UpstreamResponse(status: .ok, headers: fields, body: Array(text.utf8))
    }
}

/// A numbered-pages API in memory: `?page=N` answers items `[N*10+0, …]`, `total` items in all.
enum FakePages {
    static func items(page: Int, pageSize: Int, total: Int) -> [Int] {
        let start = (page - 1) * pageSize
        return start < total ? Array(start..<min(total, start + pageSize)) : []
    }

    static func body(page: Int, pageSize: Int, total: Int) -> String {
        "[" + items(page: page, pageSize: pageSize, total: total).map { "{\"id\":\($0)}" }.joined(separator: ",") + "]"
    }

    static func expected(total: Int) -> [[UInt8]] {
        (0..<total).map { Array("{\"id\":\($0)}".utf8) }
    }
}

import PageProxyCore
import Synchronization

/// A request's transport for one page's fetch, telling whether that fetch sent a try of its own: a request that only
/// joined another's try (the page cache's collapsing) made no upstream request, and `/metrics` counts upstream pages
/// and their latency once per try sent, not once per waiter (attack15 M1: 40 clients, 4 upstream requests, +160).
final class TryWatchingTransport: UpstreamTransport {
    private let transport: any UpstreamTransport
    private let sentCount = Atomic<Int>(0)

    init(_ transport: any UpstreamTransport) {
        self.transport = transport
    }

    /// Whether this fetch sent a try (or a whole request) through its own transport.
    var sentATry: Bool { sentCount.load(ordering: .relaxed) > 0 }

    var deadline: ContinuousClock.Instant? { transport.deadline }

    func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        sentCount.add(1, ordering: .relaxed)
        return try await transport.send(request, timeout: timeout, maxBodyBytes: maxBodyBytes)
    }

    func attempt(_ request: UpstreamRequest, maxBodyBytes: Int, flight: FlightDeadline) async -> Result<UpstreamResponse, UpstreamError> {
        sentCount.add(1, ordering: .relaxed)
        return await transport.attempt(request, maxBodyBytes: maxBodyBytes, flight: flight)
    }

    func retries(after outcome: Result<UpstreamResponse, UpstreamError>, attempt: Int) async -> Bool {
        await transport.retries(after: outcome, attempt: attempt)
    }
}

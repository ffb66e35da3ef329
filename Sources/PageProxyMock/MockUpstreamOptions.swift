import Foundation
import PageProxyCore

/// Defaults of the mock upstream; each request can override some with `mock_*` query parameters.
public struct MockUpstreamOptions: Sendable {
    /// Items in the dataset unless a request says `mock_total=N`.
    public var totalItems = 250
    /// Page size when the request does not give the service's own size parameter.
    public var pageSize = 20
    /// Requested page sizes above this are capped to it.
    public var maxPageSize = 100
    /// Delay before every answer unless a request says `mock_latency_ms=N`.
    public var latency: Duration = .zero
    /// Tests only: after the first request, hold answers until this many are in flight at once (see `MockGate`).
    package var holdUntilInFlight: Int? = nil
    /// Tests only: whether that hold applies to the first request too.
    package var holdsFirstRequest = false
    /// Tests only: every answer waits until the test opens this gate.
    package var releaseGate: MockReleaseGate? = nil
    /// Answer 429 past this many requests per token and window (`mock_rate_limit=N` asks for N per second).
    package var rateLimit: MockRateLimiter.Limit? = nil
    /// The clock of the rate limit's windows (its wall side; tests inject one).
    package var clock: PageProxyClock = .system
    /// Write each answer's head and body in two writes, as Django's `runserver` does (PageProxy's reads must then
    /// reassemble a response that arrives in two segments).
    public var splitsHeadAndBody = false
    /// Close the connection after every answer (`Connection: close`), as Werkzeug's development server does
    /// (flask-smorest's answers always do).
    public var closesEveryConnection = false

    public init(totalItems: Int = 250, pageSize: Int = 20, maxPageSize: Int = 100, latency: Duration = .zero) {
        self.totalItems = totalItems
        self.pageSize = pageSize
        self.maxPageSize = maxPageSize
        self.latency = latency
    }
}

/// One request to an upstream: a GET (or HEAD) of a page URL with the headers PageProxy forwards.
package struct UpstreamRequest: Sendable {
    package var url: PageURL
    package var method: HTTPMethod
    package var headers: HTTPHeaders
    /// For `https://`: the PEM file of CAs that verify the upstream's certificate; `nil` for the system trust store.
    package var caFile: String?

    package init(url: PageURL, method: HTTPMethod = .get, headers: HTTPHeaders = HTTPHeaders(), caFile: String? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.caFile = caFile
    }
}

/// An upstream's answer, with the whole body.
package struct UpstreamResponse: Sendable {
    package var status: HTTPStatus
    package var headers: HTTPHeaders
    package var body: [UInt8] {
        didSet {
            storedFile = nil
            bodyInFile = nil
        }
    }
    /// Set by the page cache: the body verified in its held entry file and not kept (`body` is empty; `CacheEntry`).
    package var bodyInFile: BodyInFile?
    /// The body's length, in memory or not.
    package var bodyCount: Int { bodyInFile?.length ?? body.count }
    /// Set by the page cache when the page is stored: the XXH64 of `body` (its identity in an aggregate's `ETag`).
    package var storedChecksum: UInt64?
    /// Set by the page cache: the page's scan as stored with it, so that the walker need not scan it again.
    package var storedScan: StoredScan?
    /// Set by the page cache: the open entry file `body` was read from, to send it from (`HeldEntryFile`).
    package var storedFile: HeldEntryFile?
    /// Set by `HTTP1Transport` when it read the response over a reused kept-alive connection: its origin's watch. Such a
    /// response is suspect once the origin is caught sending stray responses (`PagesOverReusedConnections`).
    package var reusedConnection: OriginStrayWatch?

    package init(status: HTTPStatus, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Sends requests to upstreams; the network is injected so that pagination can be tested without one.
package protocol UpstreamTransport: Sendable {
    /// Sends `request` and returns the complete response, or throws `UpstreamError`.
    /// - Parameters:
    ///   - timeout: for this one request: connecting, sending and receiving the whole body.
    ///   - maxBodyBytes: a larger body is an error, not a buffer that grows without bound.
    func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse

    /// When the client request this transport serves gives up (nil: never), so that waiting for a fetch another
    /// request started can end at this request's own deadline.
    var deadline: ContinuousClock.Instant? { get }

    /// One try of `request` for a fetch that several client requests may share (the page cache's collapsed fetch):
    /// no retry (each request that waits for it retries with its own budget, `retries(after:attempt:)`), and cut at
    /// no one request's deadline or page timeout (the fetch is cancelled when the last request waiting for it gives
    /// up, each at its own): the transport is given `FlightDeadline.tryBackstop` only.
    /// - Parameter flight: the latest deadline among the requests waiting (`instant`, nil: one has none), for the
    ///   waits the try makes before it is sent; told as the try is sent (`trySent`), when their page times start.
    func attempt(_ request: UpstreamRequest, maxBodyBytes: Int, flight: FlightDeadline) async -> Result<UpstreamResponse, UpstreamError>

    /// Whether the client request tries again after `outcome`, its `attempt`th try (1-based), whoever sent it: if so,
    /// the retry is taken from its budget and its wait is over when this returns.
    func retries(after outcome: Result<UpstreamResponse, UpstreamError>, attempt: Int) async -> Bool
}

extension UpstreamTransport {
    package var deadline: ContinuousClock.Instant? { nil }

    /// One `send` (a transport that does not retry).
    package func attempt(_ request: UpstreamRequest, maxBodyBytes: Int, flight: FlightDeadline) async -> Result<UpstreamResponse, UpstreamError> {
        flight.trySent()
        do {
            return .success(try await send(request, timeout: FlightDeadline.tryBackstop, maxBodyBytes: maxBodyBytes))
        } catch {
            return .failure(error)
        }
    }

    /// Never: a transport that does not retry has one try.
    package func retries(after outcome: Result<UpstreamResponse, UpstreamError>, attempt: Int) async -> Bool { false }
}

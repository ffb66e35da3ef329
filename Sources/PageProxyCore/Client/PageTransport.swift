/// How a ``PageProxyClient`` reaches upstreams: PageProxy's own HTTP/1.1 transport, or a closure of yours.
///
/// Inject a closure to walk pages without a network (tests, recorded traffic) or through an HTTP stack of your
/// choice. The closure gets one GET of one page and returns the whole response; the client adds the cache,
/// retries and pagination around it.
///
/// ```swift
/// let transport = PageTransport { request throws(UpstreamError) in
///     PageResponse(statusCode: 200, headers: [("Content-Type", "application/json")], body: Array("[1,2]".utf8))
/// }
/// let client = PageProxyClient(configuration: .init(transport: transport))
/// ```
public struct PageTransport: Sendable {
    /// Sends one page request and returns the complete response, or throws why there is none.
    public typealias Send = @Sendable (PageRequest) async throws(UpstreamError) -> PageResponse

    let base: any UpstreamTransport

    /// A transport that calls `send` for every page request.
    /// - Parameter send: answers one request; a status other than 2xx is returned, not thrown.
    public init(_ send: @escaping Send) {
        self.base = ClosureTransport(send: send)
    }

    init(base: any UpstreamTransport) {
        self.base = base
    }

    /// PageProxy's own HTTP/1.1 transport: keep-alive reuse, `http://` and `https://` upstreams (certificates
    /// verified against the system trust store). Each call makes a transport with its own connection pool. The client
    /// follows same-origin redirects whatever the transport.
    public static var http1: PageTransport { PageTransport(base: HTTP1Transport()) }
}

/// One GET of one page, as a ``PageTransport`` closure receives it.
public struct PageRequest: Sendable {
    /// The page's absolute URL.
    public var url: PageURL
    /// The request's header fields in order: the request's own, and validators (`If-None-Match`,
    /// `If-Modified-Since`) when the cache revalidates a stored page.
    public var headers: [(name: String, value: String)]
    /// How long this one request may take, connecting, sending and receiving the whole body.
    public var timeout: Duration
    /// The largest body the walk accepts; a transport should fail with ``UpstreamError/responseTooLarge(origin:limit:)``
    /// past it.
    public var maxBodyBytes: Int

    /// A page request.
    public init(url: PageURL, headers: [(name: String, value: String)] = [], timeout: Duration = .seconds(30), maxBodyBytes: Int = 16 << 20) {
        self.url = url
        self.headers = headers
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }

    /// The first value of header `name` (matched without regard to case).
    public func header(_ name: String) -> String? {
        headers.first { HTTPHeaders.namesEqual($0.name, name) }?.value
    }
}

/// An upstream's complete answer to a ``PageRequest``.
public struct PageResponse: Sendable {
    /// The HTTP status code, such as 200 or 304.
    public var statusCode: Int
    /// The response's header fields in order.
    public var headers: [(name: String, value: String)]
    /// The whole body.
    public var body: [UInt8]

    /// A response.
    public init(statusCode: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }
}

/// Adapts a ``PageTransport`` closure to the transport protocol the walk and the cache use inside the package.
private struct ClosureTransport: UpstreamTransport {
    let send: PageTransport.Send

    func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        let page = PageRequest(
            url: request.url, headers: request.headers.map { (name: $0.0, value: $0.1) }, timeout: timeout, maxBodyBytes: maxBodyBytes)
        let response = try await send(page)
        return UpstreamResponse(
            status: HTTPStatus(code: response.statusCode), headers: HTTPHeaders(response.headers.map { ($0.name, $0.value) }),
            body: response.body)
    }
}

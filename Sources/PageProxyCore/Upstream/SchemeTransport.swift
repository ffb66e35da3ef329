/// Sends `http://` requests over PageProxy's own sockets and `https://` requests over URLSession.
package struct SchemeTransport: UpstreamTransport {
    package let plain: PlainHTTPTransport
    /// `nil` when nothing is configured to need HTTPS: URLSession is then never started (it costs memory at idle).
    package let secure: URLSessionTransport?

    package init(plain: PlainHTTPTransport = PlainHTTPTransport(), secure: URLSessionTransport? = URLSessionTransport()) {
        self.plain = plain
        self.secure = secure
    }

    package func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        switch request.url.scheme {
        case "http":
            return try await plain.send(request, timeout: timeout, maxBodyBytes: maxBodyBytes)
        case "https":
            guard let secure else { throw .unsupportedScheme("https") }
            return try await secure.send(request, timeout: timeout, maxBodyBytes: maxBodyBytes)
        default:
            throw .unsupportedScheme(request.url.scheme)
        }
    }
}

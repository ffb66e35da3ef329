/// An error that knows how it is answered: every error PageProxy answers a client with conforms (Hummingbird's
/// `HTTPResponseError`), and one renderer (`ErrorResponse` in the server) turns any of them into
/// `{"error": {"code", "message", …details}}`, or the last line of an NDJSON stream.
package protocol HTTPResponseError: Error {
    /// The status of the answer.
    var status: HTTPStatus { get }
    /// The stable, machine-readable code (`unknown_route`, `upstream_status` …), also the request log's `error`.
    var code: String { get }
    /// A sentence that says what happened and, where it helps, what to do next.
    var message: String { get }
    /// Fields of the error object after `code` and `message`, in order (`route`, `page`, `upstream_url` …).
    var details: [(String, JSONFieldValue)] { get }
    /// Header fields that go with the status (`Allow` with a 405, `Retry-After` with a 429 or 503).
    var headers: HTTPHeaders { get }
}

extension HTTPResponseError {
    package var details: [(String, JSONFieldValue)] { [] }
    package var headers: HTTPHeaders { HTTPHeaders() }
}

/// An error answer that no domain type stands for: an unknown route, a method other than GET and HEAD, a client
/// past the connection cap, a request head that did not arrive in time.
package struct HTTPError: HTTPResponseError {
    package var status: HTTPStatus
    package var code: String
    package var message: String
    package var details: [(String, JSONFieldValue)]
    package var headers: HTTPHeaders

    package init(
        _ status: HTTPStatus, code: String, message: String, details: [(String, JSONFieldValue)] = [], headers: HTTPHeaders = HTTPHeaders()
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = headers
    }
}

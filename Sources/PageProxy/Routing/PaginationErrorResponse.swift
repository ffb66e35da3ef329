import PageProxyCore

/// How a failed walk is reported: status, stable code and the details DESIGN.md asks for.
///
/// The upstream-status policy (README "Upstream statuses") lives here: a 4xx on the first page is the client's
/// business and keeps its status (`upstream_client_error`); any other non-2xx is a gateway failure, 502.
struct PaginationErrorResponse {
    let status: HTTPStatus
    let code: String
    let message: String
    let details: [(String, LogValue)]
    /// Fields of the upstream's answer that go with its status when PageProxy answers with that status
    /// (`WWW-Authenticate` with a 401, `Retry-After` with a 429).
    private(set) var headers = HTTPHeaders()

    /// - Parameter secrets: the credentials sent upstream, never to be quoted back from the upstream's body.
    init(_ error: PaginationError, route: String, secrets: [String] = []) {
        var details: [(String, LogValue)] = [("route", .string(route))]
        if let page = error.page { details.append(("page", .int(page))) }
        var message = error.description
        switch error {
        case .upstreamStatus(let page, _, let upstreamStatus, let body):
            // DESIGN.md "Errors": the first page's 4xx (a bad token, a wrong path) is answered with the upstream's
            // status; later pages and 5xx are the gateway's failure. The walk has sent nothing by the first page.
            if page == 1, (400..<500).contains(upstreamStatus) {
                (status, code) = (HTTPStatus(code: upstreamStatus), "upstream_client_error")
                headers = body.relayedHeaders
            } else {
                (status, code) = (.badGateway, "upstream_status")
            }
            details.append(("upstream_status", .int(upstreamStatus)))
            if let summary = body.summary(redacting: secrets) { message += ": " + summary }
            switch body.excerpt(redacting: secrets) {
            case .none: break
            case .json(let json): details.append(("upstream_body", .json(json)))
            case .text(let text): details.append(("upstream_body", .string(text)))
            }
        case .upstreamFailed(_, _, let failure):
            code = error.code
            switch failure {
            case .timedOut: status = .gatewayTimeout
            case .foreignRedirect(_, let location), .redirectLoop(_, let location, _):
                status = .badGateway
                details.append(("location", .string(location)))
            case .rateLimited(_, let wait):
                // The upstream is fine but will not take another request before the deadline: try later (RFC 9110 §15.6.4).
                status = .serviceUnavailable
                headers.set("Retry-After", String(UpstreamError.wholeSeconds(wait)))
                details.append(("retry_after_seconds", .int(UpstreamError.wholeSeconds(wait))))
            default: status = .badGateway
            }
        case .foreignOrigin(_, let refused, _):
            (status, code) = (.badGateway, error.code)
            details.append(("refused_origin", .string(refused)))
        default:
            // The codes are Core's (PaginationError.code); every other failure is the gateway's, 502.
            (status, code) = (.badGateway, error.code)
        }
        if let url = error.url { details.append(("upstream_url", .string(url.redactedDescription))) }
        self.message = message
        self.details = details
    }

    var body: [UInt8] { ErrorResponse.body(code: code, message: message, details: details) }
}

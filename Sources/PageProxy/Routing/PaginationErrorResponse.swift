import PageProxyCore
import PageProxyServer

/// How a failed walk is reported: status, stable code and the details DESIGN.md asks for (rendered by
/// `ErrorResponse`).
///
/// The upstream-status policy (README "Upstream statuses") lives here: a 4xx on the first page is the client's
/// business and keeps its status (`upstream_client_error`); any other non-2xx is a gateway failure, 502.
struct PaginationErrorResponse: HTTPResponseError {
    let status: HTTPStatus
    let code: String
    let message: String
    let details: [(String, LogValue)]
    /// Fields of the upstream's answer that go with its status when PageProxy answers with that status
    /// (`WWW-Authenticate` with a 401, `Retry-After` with a 429).
    private(set) var headers = HTTPHeaders()

    /// Whether the walk ended because its client went away: nothing is answered and nothing failed upstream.
    static func isCancellation(_ error: PaginationError) -> Bool {
        switch error {
        case .cancelled, .upstreamFailed(_, _, .cancelled): true
        default: false
        }
    }

    /// - Parameter secrets: the credentials sent upstream, never to be quoted back from the upstream's body.
    init(_ error: PaginationError, route: String, secrets: [String] = []) {
        var details: [(String, LogValue)] = [("route", .string(route))]
        if let page = error.page { details.append(("page", .int(page))) }
        var message = error.description
        switch error {
        case .cancelled, .upstreamFailed(_, _, .cancelled):
            (status, code) = (Self.clientClosedRequest, error.code)
        case .upstreamStatus(let page, _, let upstreamStatus, let body):
            // DESIGN.md "Errors": the first page's 4xx (a bad token, a wrong path) is answered with the upstream's
            // status; later pages and 5xx are the gateway's failure. The walk has sent nothing by the first page.
            if page == 1, (400..<500).contains(upstreamStatus) {
                (status, code) = (HTTPStatus(code: upstreamStatus), "upstream_client_error")
                // Relayed fields are the upstream's words too: no credential sent goes back in them (attack11 M1).
                for (name, value) in body.relayedHeaders {
                    let isChallenge = name.lowercased() == "www-authenticate"
                    headers.add(
                        name,
                        isChallenge ? CredentialRedaction.redactChallenge(value, secrets: secrets) : CredentialRedaction.redactText(value, secrets: secrets))
                }
            } else {
                (status, code) = (.badGateway, "upstream_status")
            }
            if upstreamStatus == 304 {
                // A 304 answers a conditional request; one reaches here only when PageProxy sent no validator of its
                // own (an uncached route, or the unconditional retry after a 304 naming another version).
                message = "the upstream answered page \(page) with 304 Not Modified, though PageProxy sent no validator "
                    + "(If-None-Match / If-Modified-Since)"
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
            // RFC 9111 §5.2.1.7 — only-if-cached with nothing cached to serve is a 504.
            case .timedOut, .notCached: status = .gatewayTimeout
            case .foreignRedirect(_, let location), .redirectLoop(_, let location, _):
                status = .badGateway
                // The transport hides secret query values by name only; an upstream may put the very token it was
                // sent in a `Location` under any name (attack14 M5: `?x=<the route's Authorization token>`).
                details.append(("location", .string(CredentialRedaction.redactText(location, secrets: secrets, schemes: false))))
            case .rateLimited(_, let wait):
                // The upstream is fine but will not take another request before the deadline: try later (RFC 9110 §15.6.4).
                status = .serviceUnavailable
                headers.set("Retry-After", String(UpstreamError.wholeSeconds(wait)))
                details.append(("retry_after_seconds", .int(UpstreamError.wholeSeconds(wait))))
            case .outOfDescriptors:
                // The process is at its open-file limit: this gateway is unavailable for a moment, the upstream is not at fault.
                status = .serviceUnavailable
                headers.set("Retry-After", "1")
            default: status = .badGateway
            }
        case .foreignOrigin(_, let refused, _):
            (status, code) = (.badGateway, error.code)
            details.append(("refused_origin", .string(refused)))
        default:
            // The codes are Core's (PaginationError.code); every other failure is the gateway's, 502.
            (status, code) = (.badGateway, error.code)
        }
        if let url = error.url {
            details.append(("upstream_url", .string(CredentialRedaction.redactText(url.redactedDescription, secrets: secrets, schemes: false))))
        }
        // Every message may quote an upstream's URL or words (a redirect's `Location`, a link): no credential sent
        // goes back in it, as in `_explain`'s record of the same failure.
        self.message = CredentialRedaction.redactText(message, secrets: secrets, schemes: false)
        self.details = details
    }

    /// What a cancelled walk stands for in a log (nginx's 499): never sent, as its client has gone
    /// (`isCancellation` is checked first).
    static let clientClosedRequest = HTTPStatus(code: 499, reasonPhrase: "Client Closed Request")
}

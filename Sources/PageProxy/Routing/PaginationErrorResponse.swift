import PageProxyCore

/// How a failed walk is reported: status, stable code and the details DESIGN.md asks for.
struct PaginationErrorResponse {
    let status: HTTPStatus
    let code: String
    let message: String
    let details: [(String, LogValue)]

    init(_ error: PaginationError, route: String) {
        var details: [(String, LogValue)] = [("route", .string(route))]
        if let page = error.page { details.append(("page", .int(page))) }
        switch error {
        case .upstreamStatus(_, _, let upstreamStatus):
            (status, code) = (.badGateway, "upstream_status")
            details.append(("upstream_status", .int(upstreamStatus)))
        case .upstreamFailed(_, _, let failure):
            switch failure {
            case .timedOut: (status, code) = (.gatewayTimeout, "upstream_timeout")
            case .connectFailed: (status, code) = (.badGateway, "upstream_unreachable")
            case .connectionLost: (status, code) = (.badGateway, "upstream_connection_lost")
            case .invalidResponse: (status, code) = (.badGateway, "upstream_invalid_response")
            case .responseTooLarge: (status, code) = (.badGateway, "upstream_page_too_large")
            case .unsupportedScheme: (status, code) = (.badGateway, "upstream_scheme_unsupported")
            case .tlsFailed: (status, code) = (.badGateway, "upstream_tls_failed")
            }
        case .invalidJSON: (status, code) = (.badGateway, "upstream_invalid_json")
        case .foreignOrigin(_, let refused, _):
            (status, code) = (.badGateway, "foreign_next_link")
            details.append(("refused_origin", .string(refused)))
        case .invalidNextLink: (status, code) = (.badGateway, "invalid_next_link")
        case .loop: (status, code) = (.badGateway, "pagination_loop")
        case .tooManyPages: (status, code) = (.badGateway, "too_many_pages")
        case .cannotContinue: (status, code) = (.badGateway, "pagination_stuck")
        case .notDetected: (status, code) = (.badGateway, "pagination_not_detected")
        // The server splices bytes and never decodes items; only a library walk can fail this way.
        case .itemDecodingFailed: (status, code) = (.badGateway, "item_decoding_failed")
        }
        if let url = error.url { details.append(("upstream_url", .string(url.redactedDescription))) }
        self.message = error.description
        self.details = details
    }

    var body: [UInt8] { ErrorResponse.body(code: code, message: message, details: details) }
}

extension PaginationError {
    /// A stable name for the kind of failure, in `snake_case`: what the PageProxy server answers as its JSON error's
    /// `code` (a first page's 4xx, which the server relays with the upstream's status, is `upstream_client_error`
    /// there). Codes never change meaning; new cases bring new codes, so code that matches on codes needs no
    /// `default:` to keep compiling, only to handle codes it does not know.
    public var code: String {
        switch self {
        case .upstreamStatus: "upstream_status"
        case .upstreamFailed(_, _, let error): error.code
        case .invalidJSON: "upstream_invalid_json"
        case .foreignOrigin: "foreign_next_link"
        case .invalidNextLink: "invalid_next_link"
        case .loop: "pagination_loop"
        case .repeatedPage: "pagination_repeated_page"
        case .tooManyPages: "too_many_pages"
        case .cannotContinue: "pagination_stuck"
        case .listChanged, .pageSizeChanged, .itemsShifted: "upstream_list_changed"
        case .notDetected: "pagination_not_detected"
        case .itemDecodingFailed: "item_decoding_failed"
        case .cancelled: "client_closed_request"
        }
    }
}

extension UpstreamError {
    /// A stable name for the kind of failure, in `snake_case`, as the PageProxy server's JSON errors name it.
    public var code: String {
        switch self {
        case .connectFailed: "upstream_unreachable"
        case .timedOut: "upstream_timeout"
        case .connectionLost: "upstream_connection_lost"
        case .invalidResponse: "upstream_invalid_response"
        case .responseTooLarge: "upstream_page_too_large"
        case .unsupportedScheme: "upstream_scheme_unsupported"
        case .tlsFailed: "upstream_tls_failed"
        case .foreignRedirect: "foreign_redirect"
        case .redirectLoop: "redirect_loop"
        case .rateLimited: "upstream_rate_limited"
        case .cancelled: "client_closed_request"
        case .notCached: "not_cached"
        case .outOfDescriptors: "proxy_out_of_descriptors"
        case .strayResponse: "upstream_unsolicited_response"
        }
    }
}

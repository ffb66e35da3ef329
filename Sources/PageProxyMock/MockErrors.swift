import PageProxyCore
/// Error responses, each in the shape the imitated service uses.
package enum MockErrors {
    /// 404 for an unknown path; GitHub's own shape under `/github/` and `/repositories/`.
    package static func notFound(path: String = "/") -> MockResponse {
        if path.hasPrefix("/github/") || path.hasPrefix("/repositories/") {
            return .json(status: 404, body: Array(#"{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}"#.utf8))
        }
        return .json(status: 404, body: Array(#"{"error":"not found"}"#.utf8))
    }

    /// 401 for a rejected token, in the service's shape (GitHub's "Bad credentials", DRF's "Invalid token.").
    package static func unauthorized(_ service: MockService, echoing token: String? = nil) -> MockResponse {
        let body: String
        switch service {
        case .github, .wrapped:
            body = #"{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}"#
        case .drf, .drfPages, .drfLink, .drfLinkOffset, .wagtail:
            body = #"{"detail":"Invalid token."}"#
        case .gitlab:
            body = #"{"message":"401 Unauthorized"}"#
        case .jsonapi:
            body = #"{"errors":[{"detail":"Invalid token.","status":"401","code":"authentication_failed"}]}"#
        case .stripe:
            body = #"{"error":{"type":"invalid_request_error","message":"Invalid API Key provided."}}"#
        case .mlflow:
            body = #"{"error_code": "UNAUTHENTICATED", "message": "You are not authenticated."}"#
        case .mastodon:
            body = #"{"error":"The access token is invalid"}"#
        case .localstripe:
            body = "{\n  \"error\": {\n    \"message\": \"Unauthorized\",\n    \"type\": \"invalid_request_error\"\n  }\n}\n"
        case .kinto:
            body = #"{"code": 401, "errno": 104, "error": "Unauthorized", "message": "Please authenticate yourself to use this endpoint."}"#
        case .jupyterhub:
            body = #"{"status": 401, "message": "Unauthorized"}"#
        case .slack, .plain, .offset, .smorest, .ninja, .litestar, .eve, .tastypie, .datasette, .piccolo, .mailman, .fab, .safrs, .synapse,
            .spring, .graph, .aspnet, .facets, .graphene, .datatables, .strawberry, .airflow, .reddit, .zendesk, .notion, .mediawiki, .roundup:
            body = #"{"error":"invalid_auth"}"#
        }
        var challenge = #"Bearer realm="mock""#
        if let token { challenge += #", error="invalid_token", error_description="token \#(token) rejected""# }
        return .json(status: 401, body: Array(body.utf8), extraHeaders: [(name: "WWW-Authenticate", value: challenge)])
    }

    /// 406 from djangorestframework-jsonapi when the `Accept` field does not admit `application/vnd.api+json`.
    package static func notAcceptable() -> MockResponse {
        let body = #"{"errors":[{"detail":"Could not satisfy the request Accept header.","status":"406","code":"not_acceptable"}]}"#
        var response = MockResponse.json(status: 406, body: Array(body.utf8))
        response.setHeader("Content-Type", MockAccept.jsonAPI)
        return response
    }

    /// 301 from Django's `APPEND_SLASH` (CommonMiddleware): the same path with a slash, query kept, and an HTML body.
    package static func appendSlash(_ location: String) -> MockResponse {
        let body = Array("<html><body><h1>Moved Permanently</h1><p><a href=\"\(location)\">\(location)</a></p></body></html>\n".utf8)
        return MockResponse(status: 301, headers: [
            (name: "Content-Type", value: "text/html; charset=utf-8"), (name: "Content-Length", value: String(body.count)),
            (name: "Location", value: location),
        ], body: body)
    }

    /// 405 for a method other than GET and HEAD.
    package static func methodNotAllowed() -> MockResponse {
        .json(
            status: 405, body: Array(#"{"error":"method not allowed"}"#.utf8),
            extraHeaders: [(name: "Allow", value: "GET, HEAD")])
    }

    /// 400 for a bad `mock_*` option.
    package static func badOption(_ name: String, _ value: String) -> MockResponse {
        generic(400, "invalid value for \(name): '\(value)'")
    }

    /// 500 from `status500@K` / `transient500@K`.
    package static func internalError() -> MockResponse {
        generic(500, "internal server error")
    }

    /// A bare error status from `transient408@K`, `transient522@K`, `status501@K`.
    package static func status(_ status: Int) -> MockResponse {
        generic(status, "status \(status)")
    }

    /// 503 from `big503@K`: an HTML-ish error page padded to 2 MiB.
    package static func bigUnavailable() -> MockResponse {
        MockResponse(
            status: 503, headers: [(name: "Content-Type", value: "text/plain")],
            body: Array("service unavailable\n".utf8) + [UInt8](repeating: UInt8(ascii: " "), count: 2 << 20))
    }

    /// 429 with `Retry-After: 1` from `status429@K`.
    package static func tooManyRequests() -> MockResponse {
        .json(
            status: 429, body: Array(#"{"error":"too many requests"}"#.utf8),
            extraHeaders: [(name: "Retry-After", value: "1")])
    }

    /// 429 past the rate limit, with GitHub's body; the limit's headers come from `MockRateLimiter`.
    package static func rateLimitExceeded() -> MockResponse {
        .json(
            status: 429,
            body: Array(
                #"{"message":"API rate limit exceeded.","documentation_url":"https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api"}"#
                    .utf8))
    }

    /// 403 from `status403@K`: GitHub's secondary rate limit (no `X-RateLimit-Remaining: 0`, so not retried).
    package static func forbidden() -> MockResponse {
        let body = #"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","#
            + #""documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api","status":"403"}"#
        return .json(status: 403, body: Array(body.utf8))
    }

    /// 503 when a `stall@K` wait was cancelled.
    package static func stallCancelled() -> MockResponse {
        generic(503, "stalled request cancelled")
    }

    /// The service's answer to a bad value of its parameter `name`.
    package static func badParameter(_ service: MockService, _ name: String, _ value: String) -> MockResponse {
        let quoted = "'\(value)'"
        let body: String
        var status = 400
        switch service {
        case .plain, .offset, .ninja, .litestar, .eve, .tastypie, .datasette, .mastodon, .localstripe, .mlflow, .jupyterhub, .piccolo,
            .mailman, .fab, .safrs, .synapse, .spring, .graph, .aspnet, .facets, .graphene, .datatables, .strawberry, .airflow, .reddit,
            .zendesk, .notion, .mediawiki, .roundup:
            body = #"{"error":"# + JSONText.string("invalid value for \(name): \(quoted)") + "}"
        case .smorest:
            status = 422
            body = #"{"code": 422, "errors": {"query": {"# + JSONText.string(name) + #": ["Not a valid integer."]}}, "status": "Unprocessable Entity"}"#
        case .github, .wrapped:
            body = #"{"message":"#
                + JSONText.string("Invalid value for parameter '\(name)': \(quoted)")
                + #","documentation_url":"https://docs.github.com/rest"}"#
        case .gitlab:
            body = #"{"error":"# + JSONText.string("\(name) is invalid") + "}"
        case .drf, .drfLink, .drfLinkOffset:
            body = #"{"detail":"# + JSONText.string("Invalid \(name).") + "}"
        case .kinto:
            body = #"{"code": 400, "errno": 107, "error": "Invalid parameters", "message": "#
                + JSONText.string("\(name) in querystring: \(quoted) is not valid") + "}"
        case .wagtail:
            body = #"{"message": "# + JSONText.string("\(name) must be a positive integer") + "}"
        case .drfPages:
            body = #"{"detail":"# + JSONText.string(name == "page" ? "Invalid page." : "Invalid \(name).") + "}"
        case .jsonapi:
            body = #"{"errors":[{"status":"400","title":"Invalid Query Parameter","detail":"#
                + JSONText.string("\(name) must be a positive integer, got \(quoted)")
                + #","source":{"parameter":"# + JSONText.string(name) + "}}]}"
        case .slack:
            // Slack reports every API error with HTTP 200 and "ok":false.
            status = 200
            body = #"{"ok":false,"error":"invalid_arguments"}"#
        case .stripe:
            let message = Int(value) == nil ? "Invalid integer: \(value)" : "This value must be greater than or equal to 1."
            body = #"{"error":{"type":"invalid_request_error","message":"# + JSONText.string(message)
                + #","param":"# + JSONText.string(name) + "}}"
        }
        return .json(status: status, body: Array(body.utf8))
    }

    /// flask-smorest: `page_size` above its maximum (100) is refused, not capped (webargs' validation error).
    package static func smorestPageSizeTooLarge() -> MockResponse {
        let body = #"{"code": 422, "errors": {"query": {"page_size": ["Must be greater than or equal to 1 and less than or equal to 100."]}}, "status": "Unprocessable Entity"}"#
        return .json(status: 422, body: Array(body.utf8))
    }

    /// Wagtail API v2: a `limit` above WAGTAILAPI_LIMIT_MAX (20 by default) is refused.
    package static func wagtailLimitTooHigh(_ max: Int) -> MockResponse {
        .json(status: 400, body: Array(#"{"message": "limit cannot be higher than \#(max)"}"#.utf8))
    }

    /// Litestar: a handler parameter without a default that the request does not name.
    package static func litestarMissingParameter(_ name: String, path: String) -> MockResponse {
        let body = #"{"status_code":400,"detail":"# + JSONText.string("Missing required query parameter '\(name)' for path \(path)") + "}"
        return .json(status: 400, body: Array(body.utf8))
    }

    /// DRF PageNumberPagination: a page past the last one.
    package static func drfInvalidPage() -> MockResponse {
        .json(status: 404, body: Array(#"{"detail":"Invalid page."}"#.utf8))
    }

    /// Slack: a cursor that does not decode to a position in the dataset (HTTP 200, as Slack does).
    package static func slackInvalidCursor() -> MockResponse {
        .json(status: 200, body: Array(#"{"ok":false,"error":"invalid_cursor"}"#.utf8))
    }

    /// MLflow: `max_results` absent (read as 0) or not a positive integer.
    /// JupyterHub's 400 for an offset or limit that is not an integer.
    package static func jupyterHubInvalidArgument() -> MockResponse {
        .json(status: 400, body: Array(#"{"status": 400, "message": "Invalid argument type, offset and limit must be integers"}"#.utf8))
    }

    /// Flask-AppBuilder's 400 for a `q` that is neither Rison nor JSON (or whose page is no integer).
    package static func fabInvalidRison() -> MockResponse {
        .json(status: 400, body: Array(#"{"message":"Not a valid rison/json argument"}"#.utf8))
    }

    /// Piccolo API's 403 for a `__page_size` above its `max_page_size`.
    package static func piccoloPageSizeExceeded() -> MockResponse {
        .json(status: 403, body: Array(#"{"error":"The page size limit has been exceeded"}"#.utf8))
    }

    /// Piccolo API's 400 for a `__page` or `__page_size` that is not an integer: plain text, its exception's message.
    package static func piccoloParameter(_ name: String, _ value: String) -> MockResponse {
        let body = Array("Unrecognised \(name) argument - \(value)".utf8)
        return MockResponse(status: 400, headers: [
            (name: "Content-Type", value: "text/plain; charset=utf-8"), (name: "Content-Length", value: String(body.count)),
        ], body: body)
    }

    package static func mlflowInvalidMaxResults(_ value: String) -> MockResponse {
        let body = #"{"error_code": "INVALID_PARAMETER_VALUE", "message": "#
            + JSONText.string("Invalid value \(value) for parameter 'max_results' supplied. It must be a positive integer")
            + #", "sqlstate": "KAM00", "error_class": "INVALID_PARAMETER_VALUE"}"#
        return .json(status: 400, body: Array(body.utf8))
    }

    /// MLflow: a `page_token` that does not decode.
    package static func mlflowInvalidPageToken() -> MockResponse {
        let body = #"{"error_code": "INVALID_PARAMETER_VALUE", "message": "Invalid page token, could not base64-decode", "sqlstate": "KAM00", "error_class": "INVALID_PARAMETER_VALUE"}"#
        return .json(status: 400, body: Array(body.utf8))
    }

    /// Stripe: `starting_after` names no item.
    package static func stripeNoSuchObject(_ id: String) -> MockResponse {
        let body = #"{"error":{"type":"invalid_request_error","message":"#
            + JSONText.string("No such object: '\(id)'") + "}}"
        return .json(status: 400, body: Array(body.utf8))
    }

    /// Notion's 400 for a parameter it cannot read (an unknown `start_cursor`).
    package static func notionValidation(_ message: String) -> MockResponse {
        .json(status: 400, body: Array((#"{"object":"error","status":400,"code":"validation_error","message":"# + JSONText.string(message) + "}").utf8))
    }

    private static func generic(_ status: Int, _ message: String) -> MockResponse {
        .json(status: status, body: Array((#"{"error":"# + JSONText.string(message) + "}").utf8))
    }
}

import PageProxyCore

/// The one renderer of error answers: any `HTTPResponseError` becomes `{"error": {"code", "message", …details}}`
/// with its status and header fields, or, once an NDJSON stream has begun, the stream's failure line.
package enum ErrorResponse {
    /// The header fields of `error`'s answer: JSON, never stored by caches, then the error's own fields.
    package static func headers(for error: any HTTPResponseError) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json; charset=utf-8")
        headers.set("Cache-Control", "no-store")
        for (name, value) in error.headers { headers.add(name, value) }
        return headers
    }

    /// `{"error": {"code": …, "message": …, …details}}` and a newline.
    package static func body(for error: any HTTPResponseError) -> [UInt8] {
        let object = JSONText.object([("code", .string(error.code)), ("message", .string(error.message))] + error.details)
        return Array(("{\"error\":" + object + "}\n").utf8)
    }

    /// The last line of an NDJSON stream that failed with `error` (DESIGN.md: never mistakable for an item).
    package static func streamFailureLine(for error: any HTTPResponseError) -> [UInt8] {
        StreamFailureLine.make(errorJSON: body(for: error))
    }

    /// A whole answer that closes the connection, for a refusal written before any request was read (the
    /// connection cap): no `Date`, so that it costs one non-blocking write.
    package static func closingResponse(for error: any HTTPResponseError) -> [UInt8] {
        var headers = headers(for: error)
        let body = body(for: error)
        headers.set("Content-Length", String(body.count))
        headers.set("Connection", "close")
        return HTTPResponseHead(status: error.status, headers: headers).serialized() + body
    }
}

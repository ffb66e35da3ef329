import PageProxyCore

/// Renders every error the same way: `{"error": {"code": "...", "message": "...", ...details}}`.
enum ErrorResponse {
    static func make(
        status: HTTPStatus, code: String, message: String, details: [(String, LogValue)] = []
    ) -> (HTTPHeaders, [UInt8]) {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json; charset=utf-8")
        headers.set("Cache-Control", "no-store")
        return (headers, body(code: code, message: message, details: details))
    }

    static func body(code: String, message: String, details: [(String, LogValue)] = []) -> [UInt8] {
        let error = JSONText.object([("code", .string(code)), ("message", .string(message))] + details)
        return Array(("{\"error\":" + error + "}\n").utf8)
    }
}

/// A response status code with its reason phrase (RFC 9110 §15).
package struct HTTPStatus: Sendable, Hashable {
    package var code: Int
    package var reasonPhrase: String

    package init(code: Int, reasonPhrase: String) {
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    /// A status with its standard reason phrase (empty for unregistered codes).
    package init(code: Int) {
        self.init(code: code, reasonPhrase: HTTPStatus.standardReasonPhrase(for: code))
    }

    package static let ok = HTTPStatus(code: 200)
    package static let noContent = HTTPStatus(code: 204)
    package static let notModified = HTTPStatus(code: 304)
    package static let badRequest = HTTPStatus(code: 400)
    package static let notFound = HTTPStatus(code: 404)
    package static let methodNotAllowed = HTTPStatus(code: 405)
    package static let requestTimeout = HTTPStatus(code: 408)
    package static let lengthRequired = HTTPStatus(code: 411)
    package static let payloadTooLarge = HTTPStatus(code: 413)
    package static let uriTooLong = HTTPStatus(code: 414)
    package static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    package static let tooManyRequests = HTTPStatus(code: 429)
    package static let internalServerError = HTTPStatus(code: 500)
    package static let notImplemented = HTTPStatus(code: 501)
    package static let badGateway = HTTPStatus(code: 502)
    package static let serviceUnavailable = HTTPStatus(code: 503)
    package static let gatewayTimeout = HTTPStatus(code: 504)
    package static let httpVersionNotSupported = HTTPStatus(code: 505)
    package static let insufficientStorage = HTTPStatus(code: 507)

    // RFC 9110 §15 reason phrases (plus 429 and 431 from RFC 6585).
    package static func standardReasonPhrase(for code: Int) -> String {
        switch code {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 205: "Reset Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 417: "Expectation Failed"
        case 421: "Misdirected Request"
        case 422: "Unprocessable Content"
        case 426: "Upgrade Required"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        // RFC 4918 §11.5.
        case 507: "Insufficient Storage"
        default: ""
        }
    }
}

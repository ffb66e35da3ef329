/// Why a request was refused; each case maps to a status code, a stable code and a sentence.
package enum HTTPParseError: Error, Equatable, CustomStringConvertible {
    case requestLineTooLong
    case headersTooLarge
    case tooManyHeaders
    case bareCarriageReturn
    case tooManyEmptyLines
    case malformedRequestLine
    case invalidMethod
    case invalidTarget
    case invalidVersion
    case unsupportedVersion
    case missingColon
    case invalidHeaderName
    case whitespaceBeforeColon
    case obsoleteLineFolding
    case invalidHeaderValue
    case missingHost
    case multipleHosts
    case invalidHost
    case conflictingContentLengthAndTransferEncoding
    case invalidContentLength
    case multipleContentLengths
    case unsupportedTransferEncoding
    case transferEncodingInHTTP10
    case invalidChunkSize
    case invalidChunkFraming
    case bodyTooLarge

    /// The status to answer with before closing the connection.
    package var status: HTTPStatus {
        switch self {
        case .requestLineTooLong: .uriTooLong
        case .headersTooLarge, .tooManyHeaders: .requestHeaderFieldsTooLarge
        case .unsupportedVersion: .httpVersionNotSupported
        case .bodyTooLarge: .payloadTooLarge
        case .unsupportedTransferEncoding: .notImplemented
        default: .badRequest
        }
    }

    /// A stable snake_case identifier for logs and error bodies.
    package var code: String {
        switch self {
        case .requestLineTooLong: "request_line_too_long"
        case .headersTooLarge: "headers_too_large"
        case .tooManyHeaders: "too_many_headers"
        case .bareCarriageReturn: "bare_carriage_return"
        case .tooManyEmptyLines: "too_many_empty_lines"
        case .malformedRequestLine: "malformed_request_line"
        case .invalidMethod: "invalid_method"
        case .invalidTarget: "invalid_target"
        case .invalidVersion: "invalid_version"
        case .unsupportedVersion: "unsupported_version"
        case .missingColon: "missing_colon"
        case .invalidHeaderName: "invalid_header_name"
        case .whitespaceBeforeColon: "whitespace_before_colon"
        case .obsoleteLineFolding: "obsolete_line_folding"
        case .invalidHeaderValue: "invalid_header_value"
        case .missingHost: "missing_host"
        case .multipleHosts: "multiple_hosts"
        case .invalidHost: "invalid_host"
        case .conflictingContentLengthAndTransferEncoding: "conflicting_content_length_and_transfer_encoding"
        case .invalidContentLength: "invalid_content_length"
        case .multipleContentLengths: "multiple_content_lengths"
        case .unsupportedTransferEncoding: "unsupported_transfer_encoding"
        case .transferEncodingInHTTP10: "transfer_encoding_in_http_1_0"
        case .invalidChunkSize: "invalid_chunk_size"
        case .invalidChunkFraming: "invalid_chunk_framing"
        case .bodyTooLarge: "body_too_large"
        }
    }

    package var description: String {
        switch self {
        case .requestLineTooLong: "The request line is longer than the server accepts."
        case .headersTooLarge: "The header section is larger than the server accepts."
        case .tooManyHeaders: "The request has more header fields than the server accepts."
        case .bareCarriageReturn: "The request contains a carriage return that is not followed by a line feed."
        case .tooManyEmptyLines: "More than 16 empty lines came before the request line."
        case .malformedRequestLine: "The request line is not 'method SP target SP version' with single spaces."
        case .invalidMethod: "The request does not begin with a method token; this port speaks plain HTTP/1.1, not TLS."
        case .invalidTarget: "The request target is not an origin-form, absolute-form or OPTIONS '*' target."
        case .invalidVersion: "The HTTP version in the request line is malformed."
        case .unsupportedVersion: "Only HTTP/1.0 and HTTP/1.1 are supported."
        case .missingColon: "A header line has no colon."
        case .invalidHeaderName: "A header field name is not a valid token."
        case .whitespaceBeforeColon: "A header field has whitespace between its name and the colon."
        case .obsoleteLineFolding: "A header field is continued on a folded line, which is obsolete."
        case .invalidHeaderValue: "A header field value contains a control character."
        case .missingHost: "The HTTP/1.1 request has no Host header field."
        case .multipleHosts: "The request has more than one Host header field."
        case .invalidHost: "The Host header field value is not a valid host."
        case .conflictingContentLengthAndTransferEncoding: "The request has both Content-Length and Transfer-Encoding."
        case .invalidContentLength: "The Content-Length value is not a valid non-negative decimal number."
        case .multipleContentLengths: "The request has more than one Content-Length value."
        case .unsupportedTransferEncoding: "Only the chunked transfer coding is supported."
        case .transferEncodingInHTTP10: "An HTTP/1.0 request must not use Transfer-Encoding."
        case .invalidChunkSize: "A chunk size is not a valid hexadecimal number."
        case .invalidChunkFraming: "Chunk data is not followed by CRLF."
        case .bodyTooLarge: "The request body is larger than the server accepts."
        }
    }
}

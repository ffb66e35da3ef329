/// Why an upstream response could not be read.
package enum HTTPResponseParseError: Error, Equatable, CustomStringConvertible {
    case malformedStatusLine
    case headersTooLarge
    case invalidHeader
    case invalidContentLength
    case conflictingFraming
    case unsupportedTransferCoding
    case invalidChunk
    case bodyTooLarge(limit: Int)
    case truncated

    package var description: String {
        switch self {
        case .malformedStatusLine: "the status line is malformed"
        case .headersTooLarge: "the response header section is too large"
        case .invalidHeader: "a response header field is malformed"
        case .invalidContentLength: "the Content-Length value is invalid"
        case .conflictingFraming: "the response has both Content-Length and Transfer-Encoding"
        case .unsupportedTransferCoding: "the response uses a transfer coding other than chunked"
        case .invalidChunk: "the chunked body is malformed"
        case .bodyTooLarge(let limit): "the response body is larger than \(limit) bytes"
        case .truncated: "the connection closed before the response was complete"
        }
    }
}

/// Parses HTTP/1.1 requests (RFC 9112) from the front of a connection's receive buffer, strictly enough
/// that no request can be read two ways (request smuggling). Bodies are read and discarded.
package struct HTTPRequestParser: Sendable {
    package enum Result: Sendable {
        case needMoreData
        case request(HTTPRequestHead)
    }

    private enum State {
        case requestLine
        case headers
        case fixedBody(remaining: Int)
        case chunkedBody
        /// The head was handed out before its body (`Expect: 100-continue`); the connection closes after the answer.
        case bodyLeftUnread
        case failed(HTTPParseError)
    }

    private let limits: HTTPLimits
    private var state = State.requestLine
    private var reader = HTTPLineReader()
    private var head = HTTPRequestHead(method: .get, target: "/")
    private var headerBytes = 0
    /// Empty lines seen since the last request line.
    private var emptyLines = 0
    private var chunked: ChunkedBodyDecoder
    private var discarded: [UInt8] = []

    /// RFC 9112 §2.2 asks a server to ignore at least one empty line before a request line (a client's stray CRLF
    /// after a body); more than this many is a 400.
    package static let maxEmptyLinesBeforeRequest = 16

    package init(limits: HTTPLimits = HTTPLimits()) {
        self.limits = limits
        chunked = Self.makeChunkedDecoder(limits)
    }

    /// True when part of a request has arrived (as of the last `parse` call), so a timeout deserves a 408.
    package var hasPartialRequest: Bool {
        switch state {
        case .requestLine: reader.scanned > 0
        case .headers, .fixedBody, .chunkedBody: true
        case .bodyLeftUnread, .failed: false
        }
    }

    /// Consumes one whole request (head and body) from the front of `buffer` once it has fully arrived.
    /// Bytes of a request still arriving are consumed as soon as they are parsed (a body is dropped as it comes),
    /// so the buffer never holds more than one unfinished line of it; following pipelined requests stay in `buffer`.
    /// After a throw the parser is unusable and throws the same error again.
    package mutating func parse(_ buffer: inout [UInt8]) throws(HTTPParseError) -> Result {
        if case .failed(let error) = state { throw error }
        var cursor = 0
        defer { if cursor > 0 { buffer.removeSubrange(0..<cursor) } }
        do throws(HTTPParseError) {
            return try step(buffer, cursor: &cursor)
        } catch {
            state = .failed(error)
            throw error
        }
    }

    private mutating func step(_ buffer: [UInt8], cursor: inout Int) throws(HTTPParseError) -> Result {
        while true {
            switch state {
            case .requestLine:
                guard let line = reader.nextLine(in: buffer, from: cursor) else {
                    // RFC 9112 §3 — a request line starts with a method token: bytes that cannot begin one (a TLS
                    // ClientHello's 0x16, a binary protocol) are refused now, not after the header timeout.
                    if !Self.mayBeginWithMethod(buffer[cursor...]) { throw .invalidMethod }
                    // RFC 9112 §3 — a request line longer than the server accepts gets 414, before it ends.
                    if reader.pendingLength(in: buffer, from: cursor) > limits.maxRequestLineBytes { throw .requestLineTooLong }
                    return .needMoreData
                }
                cursor = line.next
                // RFC 9112 §2.2 — empty lines before the request line are ignored, a few of them: an endless run
                // would keep the connection's reader busy (on the socket loop's thread) with nothing to answer.
                if line.content.isEmpty {
                    emptyLines += 1
                    if emptyLines > Self.maxEmptyLinesBeforeRequest { throw .tooManyEmptyLines }
                    continue
                }
                emptyLines = 0
                // The same check as on a line still arriving, first, so that the error does not depend on how it came.
                if !Self.mayBeginWithMethod(buffer[line.content]) { throw .invalidMethod }
                if line.content.count > limits.maxRequestLineBytes { throw .requestLineTooLong }
                // RFC 9112 §2.2 — a bare CR is invalid.
                if HTTPLineReader.containsBareCR(buffer, line.content) { throw .bareCarriageReturn }
                head = try Self.parseRequestLine(buffer[line.content])
                headerBytes = 0
                state = .headers
            case .headers:
                guard let line = reader.nextLine(in: buffer, from: cursor) else {
                    // RFC 6585 §5 — 431 as soon as the header section exceeds the limit.
                    if headerBytes + reader.pendingLength(in: buffer, from: cursor) > limits.maxHeaderBytes { throw .headersTooLarge }
                    return .needMoreData
                }
                cursor = line.next
                if line.content.isEmpty {
                    if let result = try startBody() { return result }
                    continue
                }
                headerBytes += line.content.count
                if headerBytes > limits.maxHeaderBytes { throw .headersTooLarge }
                if head.headers.count >= limits.maxHeaderCount { throw .tooManyHeaders }
                if HTTPLineReader.containsBareCR(buffer, line.content) { throw .bareCarriageReturn }
                let field = try HTTPFieldSyntax.parseFieldLine(buffer[line.content])
                head.headers.add(field.name, field.value)
                // RFC 9110 §5.5 — obs-text is allowed, but a value that is not UTF-8 was stored with U+FFFD in place of
                // its bytes: it is remembered so that such a value is refused rather than forwarded altered.
                if !Self.isUTF8(buffer[line.content]) { head.fieldsNotUTF8.append(field.name) }
            case .fixedBody(let remaining):
                let count = min(remaining, buffer.count - cursor)
                cursor += count
                guard count == remaining else {
                    state = .fixedBody(remaining: remaining - count)
                    return .needMoreData
                }
                return complete()
            case .chunkedBody:
                switch try decodeChunked(buffer, cursor: &cursor) {
                case .needMoreData: return .needMoreData
                case .trailer(let range):
                    // RFC 9112 §7.1.2 — trailer fields follow the header field rules; they are then dropped.
                    _ = try HTTPFieldSyntax.parseFieldLine(buffer[range])
                case .done: return complete()
                }
            case .bodyLeftUnread:
                return .needMoreData
            case .failed(let error):
                throw error
            }
        }
    }

    private mutating func decodeChunked(_ buffer: [UInt8], cursor: inout Int) throws(HTTPParseError) -> ChunkedBodyDecoder.Step {
        do throws(ChunkedBodyDecoder.Failure) {
            return try chunked.decode(buffer, cursor: &cursor, into: &discarded, keep: false)
        } catch {
            switch error {
            case .invalidChunkSize: throw .invalidChunkSize
            case .invalidChunkFraming: throw .invalidChunkFraming
            case .bodyTooLarge: throw .bodyTooLarge
            case .trailersTooLarge: throw .headersTooLarge
            case .tooManyTrailers: throw .tooManyHeaders
            case .bareCarriageReturn: throw .bareCarriageReturn
            }
        }
    }

    /// Checks the header section and chooses how the body is delimited; a request without a body is returned.
    private mutating func startBody() throws(HTTPParseError) -> Result? {
        // The three fields that frame a request, found in one pass (not three lists of values a request).
        var (host, hostCount): (String?, Int) = (nil, 0)
        var transferEncodings: [String] = []
        var (contentLength, contentLengthCount): (String?, Int) = (nil, 0)
        for (name, value) in head.headers {
            if HTTPHeaders.namesEqual(name, "Host") {
                if host == nil { host = value }
                hostCount += 1
            } else if HTTPHeaders.namesEqual(name, "Transfer-Encoding") {
                transferEncodings.append(value)
            } else if HTTPHeaders.namesEqual(name, "Content-Length") {
                if contentLength == nil { contentLength = value }
                contentLengthCount += 1
            }
        }
        // RFC 9112 §3.2 — 400 for an HTTP/1.1 request without Host, or any request with more than one.
        if hostCount > 1 { throw .multipleHosts }
        if host == nil && head.version == .http1_1 { throw .missingHost }
        if let host, !host.utf8.allSatisfy(Self.isHostByte) { throw .invalidHost }

        if !transferEncodings.isEmpty {
            // RFC 9112 §6.1 — Transfer-Encoding in an HTTP/1.0 message means faulty framing.
            if head.version == .http1_0 { throw .transferEncodingInHTTP10 }
            // RFC 9112 §6.1 — reject Content-Length with Transfer-Encoding.
            if contentLengthCount > 0 { throw .conflictingContentLengthAndTransferEncoding }
            // RFC 9112 §6.1 — an unknown transfer coding gets 501; only a single "chunked" is understood.
            guard transferEncodings.count == 1, transferEncodings[0].lowercased() == "chunked" else {
                throw .unsupportedTransferEncoding
            }
            chunked = Self.makeChunkedDecoder(limits)
            state = .chunkedBody
            return answerBeforeBody()
        }
        if let value = contentLength {
            // RFC 9112 §6.3 — several Content-Length fields, or a list value, even of equal numbers, is refused.
            if contentLengthCount > 1 || value.utf8.contains(UInt8(ascii: ",")) { throw .multipleContentLengths }
            // RFC 9110 §8.6 — Content-Length = 1*DIGIT.
            guard let length = HTTPFieldSyntax.parseDecimal(value.utf8) else { throw .invalidContentLength }
            if length > limits.maxRequestBodyBytes { throw .bodyTooLarge }
            if length > 0 {
                state = .fixedBody(remaining: length)
                return answerBeforeBody()
            }
        }
        // RFC 9112 §6.3 — a request with neither field has no body.
        return complete()
    }

    /// RFC 9110 §10.1.1 — a client that sent `Expect: 100-continue` waits before sending the body. No answer of this
    /// server depends on a request body, so the head is answered at once (the body is never asked for) and the
    /// connection then closes; nil (read the body) otherwise. An HTTP/1.0 client ignores it, so the server must too.
    private mutating func answerBeforeBody() -> Result? {
        guard head.version == .http1_1, head.headers.tokens("Expect").contains("100-continue") else { return nil }
        head.hasUnreadBody = true
        state = .bodyLeftUnread
        reader.reset()
        return .request(head)
    }

    private mutating func complete() -> Result {
        state = .requestLine
        reader.reset()
        return .request(head)
    }

    /// RFC 9112 §3 — `method SP request-target SP HTTP-version`, single spaces.
    private static func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPRequestHead {
        // The two spaces, found in place (a request line is split once per request: no array of parts).
        guard let first = line.firstIndex(of: 0x20) else { throw .malformedRequestLine }
        let afterTarget = line[(first + 1)...]
        guard let second = afterTarget.firstIndex(of: 0x20) else { throw .malformedRequestLine }
        let (methodBytes, targetBytes, versionBytes) = (line[..<first], line[(first + 1)..<second], line[(second + 1)...])
        guard !methodBytes.isEmpty, !targetBytes.isEmpty, !versionBytes.isEmpty, !versionBytes.contains(0x20) else {
            throw .malformedRequestLine
        }
        // RFC 9110 §9.1 — method = token.
        guard HTTPFieldSyntax.isToken(methodBytes) else { throw .invalidMethod }
        let method = HTTPMethod(rawValue: String(decoding: methodBytes, as: UTF8.self))
        let version = try parseVersion(versionBytes)
        let target = String(decoding: targetBytes, as: UTF8.self)
        try validateTarget(targetBytes, method: method)
        return HTTPRequestHead(method: method, target: target, version: version)
    }

    /// RFC 9112 §2.3 — HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive; only 1.0 and 1.1 are served.
    private static func parseVersion(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let start = bytes.startIndex
        guard bytes.count == 8, bytes[start..<(start + 5)].elementsEqual("HTTP/".utf8), isDigit(bytes[start + 5]),
            bytes[start + 6] == UInt8(ascii: "."), isDigit(bytes[start + 7])
        else { throw .invalidVersion }
        let version = HTTPVersion(major: Int(bytes[start + 5] - UInt8(ascii: "0")), minor: Int(bytes[start + 7] - UInt8(ascii: "0")))
        // RFC 9110 §15.6.6 — 505 for a major version the server does not support.
        guard version == .http1_0 || version == .http1_1 else { throw .unsupportedVersion }
        return version
    }

    /// RFC 9112 §3.2 — origin-form, absolute-form (http/https) or asterisk-form for OPTIONS; no whitespace,
    /// controls, non-ASCII or fragment (RFC 9110 §7.1: a fragment is never sent).
    private static func validateTarget(_ bytes: ArraySlice<UInt8>, method: HTTPMethod) throws(HTTPParseError) {
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else { throw .invalidTarget }
        if bytes.first == UInt8(ascii: "/") { return }
        // RFC 9112 §3.2.4 — "*" is only for a server-wide OPTIONS request.
        if bytes.elementsEqual("*".utf8) {
            guard method == .options else { throw .invalidTarget }
            return
        }
        let lowered = bytes.map(HTTPHeaders.lowercased)
        let prefix: Int
        if lowered.starts(with: "http://".utf8) {
            prefix = 7
        } else if lowered.starts(with: "https://".utf8) {
            prefix = 8
        } else {
            throw .invalidTarget
        }
        let rest = lowered[prefix...]
        let authority = rest.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") }
        // RFC 9110 §4.2.1 — an http(s) URI needs a non-empty host; §4.2.4 — userinfo is treated as an error.
        guard !authority.isEmpty, !authority.contains(UInt8(ascii: "@")), authority.allSatisfy(isHostByte) else {
            throw .invalidTarget
        }
    }

    /// Whether the start of a request line (complete or still arriving) may begin with a method: its bytes before
    /// the first space are `tchar`s, or a CR that the line-ending rules judge (RFC 9112 §2.2). Only the first 32 bytes
    /// are looked at, so that a line arriving byte by byte is not rescanned at length each time.
    private static func mayBeginWithMethod(_ line: ArraySlice<UInt8>) -> Bool {
        line.prefix(32).prefix { $0 != 0x20 }.allSatisfy { HTTPFieldSyntax.isTokenChar($0) || $0 == HTTPLineReader.cr }
    }

    /// Whether a field line is UTF-8 (always, when it is ASCII).
    private static func isUTF8(_ line: ArraySlice<UInt8>) -> Bool {
        line.allSatisfy { $0 < 0x80 } || String(validating: line, as: UTF8.self) != nil
    }

    /// RFC 3986 §3.2.2 host bytes (reg-name, IP literal) plus ":" for the port.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"),
            UInt8(ascii: "%"):
            true
        default:
            false
        }
    }

    private static func makeChunkedDecoder(_ limits: HTTPLimits) -> ChunkedBodyDecoder {
        ChunkedBodyDecoder(
            maxBodyBytes: limits.maxRequestBodyBytes, maxTrailerBytes: limits.maxHeaderBytes, maxTrailerCount: limits.maxHeaderCount)
    }
}

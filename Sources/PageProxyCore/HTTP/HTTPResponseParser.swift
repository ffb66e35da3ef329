/// Parses responses from an upstream server (RFC 9112), one per request, from the front of a receive buffer.
package struct HTTPResponseParser: Sendable {
    package enum Result: Sendable {
        case needMoreData
        case response(HTTPResponseHead, body: [UInt8])
    }

    private enum State {
        case statusLine
        case headers
        case fixedBody(remaining: Int)
        case chunkedBody
        case untilClose
        case failed(HTTPResponseParseError)
    }

    private let maxHeaderBytes: Int
    private let maxBodyBytes: Int
    private var state = State.statusLine
    private var reader = HTTPLineReader()
    private var status = HTTPStatus.ok
    private var version = HTTPVersion.http1_1
    private var fields: [(name: String, value: String)] = []
    private var headBytes = 0
    private var sawInterimResponse = false
    private var body: [UInt8] = []
    private var chunked: ChunkedBodyDecoder

    /// Whether the connection may be reused after the last response (false for close-delimited bodies,
    /// `Connection: close`, HTTP/1.0 without keep-alive, or before any response completed).
    package private(set) var isReusable = false

    package init(maxHeaderBytes: Int = 65536, maxBodyBytes: Int) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxBodyBytes = maxBodyBytes
        chunked = Self.makeChunkedDecoder(maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
    }

    /// Parses one response to a request made with `method`, consuming its bytes from `buffer` as they are read.
    /// Skips 1xx interim responses; no body for HEAD, 1xx, 204 and 304; otherwise Content-Length, chunked,
    /// or until the connection closes (then `finish()` completes it). Bytes of a following response stay in `buffer`.
    package mutating func parse(_ buffer: inout [UInt8], method: HTTPMethod) throws(HTTPResponseParseError) -> Result {
        if case .failed(let error) = state { throw error }
        var cursor = 0
        defer { if cursor > 0 { buffer.removeSubrange(0..<cursor) } }
        do throws(HTTPResponseParseError) {
            return try step(buffer, cursor: &cursor, method: method)
        } catch {
            state = .failed(error)
            throw error
        }
    }

    /// The most of an error body kept when the whole is over the limit (`cutErrorResponse`).
    package static let cutErrorBodyBytes = 4096

    /// After `.bodyTooLarge` on an error status (4xx, 5xx): its head and the first bytes of its body, so that the status
    /// is reported (and a 5xx retried) as any other, whatever the size of the error page (attack13 U1: a 503 with
    /// 20 MB of padding was `upstream_page_too_large`). The rest is never read: the connection is not reusable.
    package func cutErrorResponse() -> (HTTPResponseHead, body: [UInt8])? {
        guard case .failed(.bodyTooLarge) = state, status.code >= 400 else { return nil }
        let head = HTTPResponseHead(status: status, version: version, headers: HTTPHeaders(fields.map { ($0.name, $0.value) }))
        return (head, Array(body.prefix(Self.cutErrorBodyBytes)))
    }

    /// Called at end of stream: completes a close-delimited body, throws `.truncated` if a response was partly read,
    /// and returns `.needMoreData` if nothing of a response was read.
    package mutating func finish() throws(HTTPResponseParseError) -> Result {
        switch state {
        case .failed(let error):
            throw error
        case .untilClose:
            // RFC 9112 §6.3 — without Content-Length or chunked, the body ends when the connection closes.
            return complete(reusable: false)
        case .statusLine where reader.scanned == 0 && !sawInterimResponse:
            return .needMoreData
        default:
            state = .failed(.truncated)
            throw .truncated
        }
    }

    private mutating func step(_ buffer: [UInt8], cursor: inout Int, method: HTTPMethod) throws(HTTPResponseParseError) -> Result {
        while true {
            switch state {
            case .statusLine, .headers:
                guard let line = reader.nextLine(in: buffer, from: cursor) else {
                    if headBytes + reader.pendingLength(in: buffer, from: cursor) > maxHeaderBytes { throw .headersTooLarge }
                    return .needMoreData
                }
                cursor = line.next
                headBytes += line.content.count
                if headBytes > maxHeaderBytes { throw .headersTooLarge }
                let content = buffer[line.content]
                if case .statusLine = state {
                    // RFC 9112 §2.2 — tolerate empty lines before the status line.
                    if content.isEmpty { continue }
                    try parseStatusLine(content)
                    state = .headers
                } else if content.isEmpty {
                    if let result = try startBody(method: method) { return result }
                } else {
                    try addField(content)
                }
            case .fixedBody(let remaining):
                let count = min(remaining, buffer.count - cursor)
                body.append(contentsOf: buffer[cursor..<(cursor + count)])
                cursor += count
                guard count == remaining else {
                    state = .fixedBody(remaining: remaining - count)
                    return .needMoreData
                }
                return complete(reusable: true)
            case .chunkedBody:
                do throws(ChunkedBodyDecoder.Failure) {
                    switch try chunked.decode(buffer, cursor: &cursor, into: &body, keep: true) {
                    case .needMoreData: return .needMoreData
                    case .trailer: continue  // RFC 9112 §7.1.2 — trailer fields are read and dropped.
                    case .done: return complete(reusable: true)
                    }
                } catch {
                    switch error {
                    case .bodyTooLarge: throw .bodyTooLarge(limit: maxBodyBytes)
                    case .trailersTooLarge, .tooManyTrailers: throw .headersTooLarge
                    default: throw .invalidChunk
                    }
                }
            case .untilClose:
                let count = buffer.count - cursor
                if count > maxBodyBytes - body.count { throw .bodyTooLarge(limit: maxBodyBytes) }
                body.append(contentsOf: buffer[cursor...])
                cursor = buffer.count
                return .needMoreData
            case .failed(let error):
                throw error
            }
        }
    }

    /// RFC 9112 §4 — `HTTP-version SP 3DIGIT SP [reason-phrase]`; a missing final SP is tolerated.
    private mutating func parseStatusLine(_ line: ArraySlice<UInt8>) throws(HTTPResponseParseError) {
        let bytes = Array(line)
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard bytes.count >= 12, bytes[0..<5].elementsEqual("HTTP/".utf8), bytes[5] == UInt8(ascii: "1"),
            bytes[6] == UInt8(ascii: "."), isDigit(bytes[7]), bytes[8] == 0x20, bytes[9...11].allSatisfy(isDigit),
            bytes.count == 12 || bytes[12] == 0x20, !HTTPLineReader.containsBareCR(bytes, 0..<bytes.count)
        else { throw .malformedStatusLine }
        let code = bytes[9...11].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard code >= 100 else { throw .malformedStatusLine }
        version = HTTPVersion(major: 1, minor: Int(bytes[7] - UInt8(ascii: "0")))
        status = HTTPStatus(code: code, reasonPhrase: bytes.count > 13 ? String(decoding: bytes[13...], as: UTF8.self) : "")
    }

    private mutating func addField(_ line: ArraySlice<UInt8>) throws(HTTPResponseParseError) {
        if let first = line.first, HTTPFieldSyntax.isWhitespace(first) {
            // RFC 9112 §5.2 — a user agent replaces obs-fold with SP.
            guard !fields.isEmpty, line.allSatisfy(HTTPFieldSyntax.isFieldValueByte) else { throw .invalidHeader }
            let continuation = String(decoding: HTTPFieldSyntax.trimmingOWS(line), as: UTF8.self)
            fields[fields.count - 1].value += " " + continuation
            return
        }
        if line.contains(HTTPLineReader.cr) { throw .invalidHeader }
        do throws(HTTPParseError) {
            fields.append(try HTTPFieldSyntax.parseFieldLine(line))
        } catch {
            throw .invalidHeader
        }
    }

    /// RFC 9112 §6.3 — how the body of this response is delimited; returns the response when it has no body.
    private mutating func startBody(method: HTTPMethod) throws(HTTPResponseParseError) -> Result? {
        let headers = HTTPHeaders(fields.map { ($0.name, $0.value) })
        if (100..<200).contains(status.code) && status.code != 101 {
            // RFC 9110 §15.2 — interim responses precede the final one and are skipped.
            sawInterimResponse = true
            resetHead()
            return nil
        }
        // RFC 9112 §6.3 rule 1 — HEAD, 1xx, 204 and 304 responses end at the header section.
        if method == .head || status.code < 200 || status.code == 204 || status.code == 304 {
            // One whose head declares a body (a `Content-Length` above 0, any `Transfer-Encoding`) may be followed by
            // that body, a moment late: the connection is not used again, or those bytes would answer the next
            // request on it (attack13 H3, retest13: 2 ms after a 304's head, a forged page was stored). A 304's
            // `Content-Length` above 0 too, though RFC 9110 §8.6 lets it be the length of the representation it
            // validates: no check at the next use can tell a body that is still on its way from an answer, and a
            // well-formed response written late would answer the next request, another client's perhaps (review21 L1).
            // Reuse is lost only against a server that states it (most send none, or 0).
            let declaresBody = headers.contains("Transfer-Encoding")
                || headers.tokens("Content-Length").contains { HTTPFieldSyntax.parseDecimal($0.utf8) != 0 }
            return complete(reusable: status.code != 101 && !declaresBody)
        }
        // RFC 9112 §6.3 rule 2 — a 2xx answer to CONNECT turns the connection into a tunnel.
        if method == .connect && (200..<300).contains(status.code) { return complete(reusable: false) }
        if headers.contains("Transfer-Encoding") {
            // RFC 9112 §6.3 rule 3 — both fields may be a smuggling attempt; this client refuses it.
            if headers.contains("Content-Length") { throw .conflictingFraming }
            guard headers.tokens("Transfer-Encoding") == ["chunked"] else { throw .unsupportedTransferCoding }
            chunked = Self.makeChunkedDecoder(maxHeaderBytes: maxHeaderBytes, maxBodyBytes: maxBodyBytes)
            state = .chunkedBody
            return nil
        }
        if headers.contains("Content-Length") {
            // RFC 9110 §8.6 — a list of identical values may be taken as that value; anything else is invalid.
            let values = headers.tokens("Content-Length")
            guard let first = values.first, values.allSatisfy({ $0 == first }),
                let length = HTTPFieldSyntax.parseDecimal(first.utf8)
            else { throw .invalidContentLength }
            if length > maxBodyBytes { throw .bodyTooLarge(limit: maxBodyBytes) }
            if length == 0 { return complete(reusable: true) }
            state = .fixedBody(remaining: length)
            return nil
        }
        // RFC 9112 §6.3 rule 8 — otherwise the body lasts until the connection closes.
        state = .untilClose
        return nil
    }

    private mutating func complete(reusable: Bool) -> Result {
        let head = HTTPResponseHead(status: status, version: version, headers: HTTPHeaders(fields.map { ($0.name, $0.value) }))
        let result = Result.response(head, body: body)
        isReusable = reusable && head.isKeepAlive
        resetHead()
        sawInterimResponse = false
        body = []
        return result
    }

    private mutating func resetHead() {
        state = .statusLine
        reader.reset()
        fields = []
        headBytes = 0
    }

    private static func makeChunkedDecoder(maxHeaderBytes: Int, maxBodyBytes: Int) -> ChunkedBodyDecoder {
        ChunkedBodyDecoder(maxBodyBytes: maxBodyBytes, maxTrailerBytes: maxHeaderBytes, maxTrailerCount: 1000)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 client for `http://` and `https://` upstreams on PageProxy's own non-blocking sockets, with
/// keep-alive reuse; TLS is OpenSSL's, loaded when the first `https://` connection is made.
package final class HTTP1Transport: UpstreamTransport {
    package let pool: ConnectionPool
    private let userAgent: String

    package init(pool: ConnectionPool = ConnectionPool(), userAgent: String = "PageProxy/\(PageProxyVersion.current)") {
        self.pool = pool
        self.userAgent = userAgent
    }

    package func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        guard request.url.scheme == "http" || request.url.scheme == "https" else { throw .unsupportedScheme(request.url.scheme) }
        let origin = request.url.origin
        let key = ConnectionPool.Key(origin: origin, caFile: request.caFile)
        let deadline = ContinuousClock.now + timeout
        var freshOnly = false
        while true {
            // An origin caught sending bytes no request asked for gets a new connection per request, told so (RFC 9112
            // §9.6: a client that does not keep a connection sends "close").
            let keepsAlive = pool.reuses(origin)
            let bytes = serialize(request, keepsAlive: keepsAlive)
            let reused = freshOnly || !keepsAlive ? nil : pool.takeIdle(for: key)
            let socket: any UpstreamConnection
            if let reused {
                socket = reused
            } else {
                do {
                    socket = try await pool.connect(to: key, deadline: deadline)
                } catch {
                    switch error {
                    case .socket(.timedOut): throw .timedOut(origin: origin.description)
                    // The process's own limit, not the upstream's doing: a 503, not "unreachable" (attack13 H2).
                    case .socket(.failed(_, let code)) where code == EMFILE || code == ENFILE:
                        throw .outOfDescriptors(origin: origin.description)
                    case .socket(let error): throw .connectFailed(origin: origin.description, reason: error.description)
                    case .tls(let error): throw .tlsFailed(origin: origin.description, reason: error.description)
                    }
                }
            }
            do {
                let (response, isReusable, leftover) = try await exchange(
                    bytes, on: socket, method: request.method, deadline: deadline, maxBodyBytes: maxBodyBytes, origin: origin)
                // Bytes past a whole response, read with it or waiting by now (the pool's check-in looks; a reused
                // connection not kept, its response saying `close`, is looked at before it is closed): none was asked for.
                // The start of a response there blames the origin; other bytes (a body a 304 carried) cost this connection.
                // A 204 or 304 not kept declared a body it may still send late (review21 L1): that is no stray answer.
                var after = leftover
                if leftover == .quiet && isReusable && keepsAlive {
                    after = pool.giveBack(socket, for: key)
                } else {
                    if leftover == .quiet && reused != nil && response.status.code != 204 && response.status.code != 304 { after = socket.idleState() }
                    socket.close()
                    if after == .unsolicited { pool.noteUnsolicited(from: origin, .afterAResponse) }
                }
                if (after == .unsolicited || after == .unframed) && reused != nil && !Task.isCancelled {
                    // On a reused connection the response read may be one the upstream wrote unasked before this request
                    // came, and the bytes after it this request's answer: neither can be told from the other, so the
                    // request is sent again, on a new connection, where the first response is the answer to it.
                    freshOnly = true
                    continue
                }
                guard reused != nil else { return response }
                // Bytes seen later, a page on, would make it suspect: it may be a stray the upstream wrote before this
                // request went out (stray19). The walk that read it learns so from its origin's watch.
                var answer = response
                answer.reusedConnection = pool.strayWatch(for: origin)
                return answer
            } catch .staleConnection where reused != nil && !Task.isCancelled {
                // The upstream closed an idle kept-alive connection before our request reached it: try a new one.
                // A cancelled fetch also ends with a silent socket, and must not be sent again.
                socket.close()
                continue
            } catch .malformed where reused != nil && !Task.isCancelled {
                // Bytes left on a kept connection (written after a whole answer, too late for the pool's quiet check)
                // read as this answer: once more on a new connection, where the answer is the upstream's own.
                socket.close()
                freshOnly = true
                continue
            } catch {
                socket.close()
                // A fetch whose client went away ends with its socket closed under it: that is not the upstream's doing.
                throw Task.isCancelled ? .cancelled : error.upstreamError
            }
        }
    }

    private enum ExchangeError: Error {
        case staleConnection
        /// Bytes that are no HTTP response (`invalidResponse`).
        case malformed(UpstreamError)
        case failed(UpstreamError)

        var upstreamError: UpstreamError {
            switch self {
            case .staleConnection: .connectionLost(origin: "upstream", reason: "closed before answering")
            case .malformed(let error), .failed(let error): error
            }
        }
    }

    private func exchange(
        _ bytes: [UInt8], on socket: any UpstreamConnection, method: HTTPMethod, deadline: ContinuousClock.Instant, maxBodyBytes: Int, origin: PageURL.Origin
    ) async throws(ExchangeError) -> (UpstreamResponse, isReusable: Bool, leftover: UpstreamIdleState) {
        do {
            try await socket.write(bytes, deadline: deadline)
        } catch .timedOut {
            throw .failed(.timedOut(origin: origin.description))
        } catch {
            throw .staleConnection
        }
        // Linux delays ACKs on a connection that looks interactive (a kept-alive one, after a request went out) and
        // clears TCP_QUICKACK by itself, so it is set again after the request and after every read. Against a
        // server that writes head and body in two writes with Nagle on (Django's runserver), each page otherwise
        // waits ~40 ms for the delayed ACK of its head (BENCHMARKS.md "Delayed ACKs").
        socket.acknowledgeAtOnce()
        var parser = HTTPResponseParser(maxBodyBytes: maxBodyBytes)
        var buffer: [UInt8] = []
        var received = 0
        while true {
            let parsed: (HTTPResponseHead, [UInt8])?
            do {
                if case .response(let head, let body) = try parser.parse(&buffer, method: method) { parsed = (head, body) } else { parsed = nil }
            } catch .bodyTooLarge(let limit) {
                // An error page over the limit is still its status (a 5xx is retried as any); the connection is dropped.
                // The rest of its body is still coming: unusable, and no sign of a stray.
                if let (head, prefix) = parser.cutErrorResponse() {
                    return (UpstreamResponse(status: head.status, headers: head.headers, body: prefix), false, .unusable)
                }
                throw .failed(.responseTooLarge(origin: origin.description, limit: limit))
            } catch {
                throw .malformed(.invalidResponse(origin: origin.description, reason: error.description))
            }
            if let (head, body) = parsed {
                return (try Self.identityResponse(head, body, origin: origin), parser.isReusable, UpstreamIdleState(leftover: buffer))
            }
            let count: Int
            do {
                count = try await socket.read(into: &buffer, maxBytes: 65536, deadline: deadline)
            } catch .timedOut {
                throw .failed(.timedOut(origin: origin.description))
            } catch {
                if received == 0 { throw .staleConnection }
                throw .failed(.connectionLost(origin: origin.description, reason: error.description))
            }
            received += count
            socket.acknowledgeAtOnce()
            if count == 0 {
                if received == 0 { throw .staleConnection }
                do {
                    if case .response(let head, let body) = try parser.finish() {
                        return (UpstreamResponse(status: head.status, headers: head.headers, body: body), false, .quiet)
                    }
                } catch {
                    throw .failed(.connectionLost(origin: origin.description, reason: "the response ended early (\(error.description))"))
                }
                throw .failed(.connectionLost(origin: origin.description, reason: "the response ended early"))
            }
        }
    }

    /// The response, unless its body is compressed: items are spliced from the bytes as they arrived.
    private static func identityResponse(_ head: HTTPResponseHead, _ body: [UInt8], origin: PageURL.Origin) throws(ExchangeError) -> UpstreamResponse {
        if let coding = head.headers["Content-Encoding"], coding.lowercased() != "identity" {
            throw .failed(.invalidResponse(
                origin: origin.description, reason: "the body is \(coding)-encoded; http:// upstreams must send identity bodies"))
        }
        return UpstreamResponse(status: head.status, headers: head.headers, body: body)
    }

    /// The `Accept` sent unless a route's headers name one: JSON first, then any JSON-based type (JSON:API's
    /// `application/vnd.api+json`, `application/problem+json` …), then anything, so that no JSON API answers 406
    /// (djangorestframework-jsonapi offers only `application/vnd.api+json`; RFC 9110 §12.5.1).
    package static let defaultAccept = "application/json, application/*+json;q=0.9, */*;q=0.8"

    private func serialize(_ request: UpstreamRequest, keepsAlive: Bool) -> [UInt8] {
        var text = "\(request.method.rawValue) \(request.url.requestTarget) HTTP/1.1\r\nHost: \(request.url.hostHeader)\r\n"
        if !keepsAlive && !request.headers.contains("Connection") { text += "Connection: close\r\n" }
        if !request.headers.contains("User-Agent") { text += "User-Agent: \(userAgent)\r\n" }
        if !request.headers.contains("Accept") { text += "Accept: \(Self.defaultAccept)\r\n" }
        // Without this header an upstream may pick any coding (RFC 9110, 12.5.3); items are spliced from the bytes.
        if !request.headers.contains("Accept-Encoding") { text += "Accept-Encoding: identity\r\n" }
        for (name, value) in request.headers {
            text += "\(name): \(value)\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }
}

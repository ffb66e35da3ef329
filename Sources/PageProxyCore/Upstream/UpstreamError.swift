/// A failure to get an answer from an upstream at all (as opposed to an answer PageProxy cannot use).
///
/// New cases may be added in a minor release; a `switch` over it should end with `default:`. ``isRetryable``
/// classifies every case, present and future.
public enum UpstreamError: Error, Equatable, CustomStringConvertible {
    /// The connection could not be made: refused, unreachable, or the name did not resolve.
    case connectFailed(origin: String, reason: String)
    /// The upstream did not answer in time.
    case timedOut(origin: String)
    /// The connection broke while the request or response was in transit.
    case connectionLost(origin: String, reason: String)
    /// The response was not valid HTTP/1.1.
    case invalidResponse(origin: String, reason: String)
    /// The response body was larger than the route allows.
    case responseTooLarge(origin: String, limit: Int)
    /// The scheme is not one this transport speaks.
    case unsupportedScheme(String)
    /// The TLS handshake failed, for example because the certificate does not verify.
    case tlsFailed(origin: String, reason: String)
    /// The origin's rate-limit budget is spent for longer than the client request may wait (see `OriginBudget`).
    case rateLimited(origin: String, wait: Duration)
    /// A redirect pointed outside the route's origin: refused, never requested (`location` without credentials).
    case foreignRedirect(origin: String, location: String)
    /// Redirects came back to a URL already visited, or went on past the bound.
    case redirectLoop(origin: String, location: String, limit: Int)
    /// The fetch was cancelled because its client went away: not the upstream's failure, never counted as one.
    case cancelled
    /// The client said `Cache-Control: only-if-cached` and the cache holds no page it may serve (RFC 9111 §5.2.1.7):
    /// the upstream was not asked. `storedSecondsAgo`: the page is stored, but not fresh for the route (attack15 U1:
    /// "not in the cache" sent the client looking for a miss where `max-stale` or a plain request would do).
    case notCached(origin: String, storedSecondsAgo: Int? = nil)
    /// PageProxy itself had no descriptor left for a new connection (EMFILE, ENFILE, or its own reserve,
    /// `DescriptorReserve`): the process's limit, not the upstream's failure; nothing was sent.
    case outOfDescriptors(origin: String)
    /// The origin was caught sending a response no request asked for while a walk had pages read over its reused
    /// connections: any of them may have been that stray response, and none is answered or kept (stray19). A request
    /// sent again is walked on new connections.
    case strayResponse(origin: String)

    /// What failed, and with which origin.
    public var description: String {
        switch self {
        case .connectFailed(let origin, let reason): "could not connect to \(origin): \(reason)"
        case .timedOut(let origin): "\(origin) did not answer in time"
        case .connectionLost(let origin, let reason): "the connection to \(origin) broke: \(reason)"
        case .invalidResponse(let origin, let reason): "\(origin) sent an invalid HTTP response: \(reason)"
        case .responseTooLarge(let origin, let limit): "a page from \(origin) is larger than the route's limit of \(limit) bytes"
        case .unsupportedScheme(let scheme): "upstream scheme \(scheme) is not supported"
        case .tlsFailed(let origin, let reason): "TLS with \(origin) failed: \(reason)"
        case .rateLimited(let origin, let wait):
            "the rate limit of \(origin) allows no request for another \(Self.wholeSeconds(wait)) s, past this request's deadline"
        case .foreignRedirect(let origin, let location):
            "\(origin) redirected to \(location), outside the route's origin; the redirect was not followed"
        case .redirectLoop(let origin, let location, let limit):
            "\(origin) redirected in a loop or more than \(limit) times (last to \(location))"
        case .cancelled: "the fetch was cancelled: its client went away"
        case .notCached(let origin, nil): "a page from \(origin) is not in the cache, and the client said only-if-cached"
        case .notCached(let origin, let age?):
            "a page from \(origin) is in the cache but not fresh (stored \(age) s ago, stale for this route), and the client said only-if-cached"
        case .outOfDescriptors(let origin):
            "PageProxy is at its limit of open files (ulimit -n), so no connection to \(origin) was opened; retry shortly"
        case .strayResponse(let origin):
            "\(origin) sent a response no request asked for while this walk read pages over its kept-alive connections: "
                + "any of them may have been that stray response, so none is cached (lines a stream already sent before this "
                + "error may hold it: discard them); retry the request (its "
                + "connections are not reused from now on)"
        }
    }

    /// Whether a retry may help (the request was not answered, and GET is idempotent).
    public var isRetryable: Bool {
        switch self {
        case .connectFailed, .timedOut, .connectionLost: true
        case .invalidResponse, .responseTooLarge, .unsupportedScheme, .tlsFailed, .foreignRedirect, .redirectLoop, .rateLimited, .cancelled, .notCached,
            .outOfDescriptors, .strayResponse: false
        }
    }

    /// A wait in whole seconds, rounded up (what `Retry-After` says).
    public static func wholeSeconds(_ wait: Duration) -> Int {
        let (seconds, attoseconds) = wait.components
        return Int(max(0, seconds)) + (attoseconds > 0 ? 1 : 0)
    }
}

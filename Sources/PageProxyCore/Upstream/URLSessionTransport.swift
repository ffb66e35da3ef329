import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// An HTTPS client on the toolchain's URLSession (libcurl and OpenSSL underneath), for `https://` upstreams.
///
/// Certificates are verified against the system trust store. Redirects are never followed (a 3xx reaches the walk
/// as it is, so no request leaves the route's origin), cookies and URL caching are off, gzip and deflate bodies
/// are decoded by libcurl, and the body is refused past `maxBodyBytes` while it downloads.
package final class URLSessionTransport: UpstreamTransport {
    private let session: URLSession
    private let exchanges: URLSessionExchanges
    private let userAgent: String

    package init(maxConnectionsPerHost: Int = 16, userAgent: String = "PageProxy/\(PageProxyVersion.current)") {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = maxConnectionsPerHost
        // Each send has its own deadline (below); URLSession's own limits must never be the shorter ones.
        configuration.timeoutIntervalForRequest = 24 * 3600
        configuration.timeoutIntervalForResource = 24 * 3600
        exchanges = URLSessionExchanges()
        session = URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
        self.userAgent = userAgent
    }

    deinit {
        session.invalidateAndCancel()
    }

    package func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        let origin = request.url.origin.description
        guard request.url.scheme == "https" || request.url.scheme == "http" else { throw .unsupportedScheme(request.url.scheme) }
        guard let url = URL(string: request.url.description) else {
            throw .connectFailed(origin: origin, reason: "the URL is not valid: \(request.url)")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        urlRequest.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let task = session.dataTask(with: urlRequest)
        let id = task.taskIdentifier
        let exchanges = self.exchanges
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                exchanges.begin(id, origin: origin, maxBodyBytes: maxBodyBytes, continuation: continuation)
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout.dispatchInterval) {
                    if exchanges.fail(id, with: .timedOut(origin: origin)) { task.cancel() }
                }
            }
        } onCancel: {
            if exchanges.fail(id, with: .connectionLost(origin: origin, reason: "cancelled")) { task.cancel() }
        }
        return try result.get()
    }
}

/// The state of each URLSession task in flight, and the session's delegate that fills it in.
///
/// A task's outcome is set once: by its completion, by its deadline, by cancellation or by its body growing past
/// the limit, whichever comes first; the first also decides the error the caller sees.
private final class URLSessionExchanges: NSObject, URLSessionDataDelegate, Sendable {
    private struct Exchange {
        var origin: String
        var maxBodyBytes: Int
        var continuation: CheckedContinuation<Result<UpstreamResponse, UpstreamError>, Never>?
        var response: HTTPURLResponse?
        var body: [UInt8] = []
        var failure: UpstreamError?
    }

    private let state = Mutex<[Int: Exchange]>([:])

    func begin(_ id: Int, origin: String, maxBodyBytes: Int, continuation: CheckedContinuation<Result<UpstreamResponse, UpstreamError>, Never>) {
        state.withLock { $0[id] = Exchange(origin: origin, maxBodyBytes: maxBodyBytes, continuation: continuation) }
    }

    /// Records `error` as the outcome unless there is one; returns whether the task should now be cancelled.
    func fail(_ id: Int, with error: UpstreamError) -> Bool {
        state.withLock { exchanges in
            guard exchanges[id] != nil, exchanges[id]?.failure == nil else { return false }
            exchanges[id]?.failure = error
            return true
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        state.withLock { $0[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = state.withLock { exchanges -> Bool in
            guard var exchange = exchanges[dataTask.taskIdentifier], exchange.failure == nil else { return false }
            exchange.body.append(contentsOf: data)
            if exchange.body.count > exchange.maxBodyBytes {
                exchange.failure = .responseTooLarge(origin: exchange.origin, limit: exchange.maxBodyBytes)
                exchange.body = []
            }
            exchanges[dataTask.taskIdentifier] = exchange
            return exchange.failure != nil
        }
        if tooLarge { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // A redirect is answered as it is: following it could leave the route's origin.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = state.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        exchange.continuation?.resume(returning: Self.outcome(of: exchange, error: error))
    }

    private static func outcome(of exchange: Exchange, error: (any Error)?) -> Result<UpstreamResponse, UpstreamError> {
        if let failure = exchange.failure { return .failure(failure) }
        if let error { return .failure(upstreamError(error, origin: exchange.origin)) }
        guard let response = exchange.response else {
            return .failure(.invalidResponse(origin: exchange.origin, reason: "no HTTP response"))
        }
        var headers = HTTPHeaders()
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String, let value = value as? String else { continue }
            headers.add(name, value)
        }
        return .success(UpstreamResponse(status: HTTPStatus(code: response.statusCode), headers: headers, body: exchange.body))
    }

    /// Maps URLSession's errors to the walk's: certificate problems say so, so that a 502 can explain itself.
    static func upstreamError(_ error: any Error, origin: String) -> UpstreamError {
        guard let error = error as? URLError else { return .connectionLost(origin: origin, reason: "\(error)") }
        switch error.code {
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid:
            return .tlsFailed(origin: origin, reason: "the server's certificate did not verify against the system trust store")
        case .secureConnectionFailed, .clientCertificateRejected, .clientCertificateRequired:
            return .tlsFailed(origin: origin, reason: "the TLS handshake failed (\(error.localizedDescription))")
        case .timedOut:
            return .timedOut(origin: origin)
        case .cannotFindHost, .dnsLookupFailed, .cannotConnectToHost, .notConnectedToInternet:
            return .connectFailed(origin: origin, reason: error.localizedDescription)
        case .badServerResponse, .cannotParseResponse:
            return .invalidResponse(origin: origin, reason: error.localizedDescription)
        default:
            // libcurl's TLS failures mostly arrive as code -1; only its message tells them apart.
            let message = error.localizedDescription
            if message.localizedCaseInsensitiveContains("certificate") {
                return .tlsFailed(origin: origin, reason: "the server's certificate did not verify against the system trust store (\(message))")
            }
            if message.contains("SSL") || message.contains("TLS") {
                return .tlsFailed(origin: origin, reason: "the TLS handshake failed (\(message))")
            }
            return .connectionLost(origin: origin, reason: message)
        }
    }
}

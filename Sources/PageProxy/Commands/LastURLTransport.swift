import PageProxyCore
import Synchronization

/// Sends through `base` and keeps the URL of the last request sent: behind a `RedirectingTransport`, the URL its
/// redirects ended at, which `probe` suggests as the route's upstream (attack11 U4: Django's `/items` → `/items/`
/// suggested `/items`, so every walk began with a redirect).
final class LastURLTransport: UpstreamTransport {
    private let base: any UpstreamTransport
    private let last = Mutex<PageURL?>(nil)

    init(base: any UpstreamTransport) {
        self.base = base
    }

    /// The URL of the last request sent; nil before any.
    var lastURL: PageURL? { last.withLock { $0 } }

    func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        last.withLock { $0 = request.url }
        return try await base.send(request, timeout: timeout, maxBodyBytes: maxBodyBytes)
    }
}

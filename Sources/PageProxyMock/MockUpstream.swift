import Foundation
import PageProxyCore
import Synchronization

/// The built-in mock paginated upstream: pure request → response logic, one route per
/// imitated service (see `MockService`), with per-request `mock_*` options and faults.
///
/// Users' own Swift tests start it in process with `MockUpstream.start(options:)` (README "The mock as a library").
public final class MockUpstream: Sendable {
    package let options: MockUpstreamOptions
    /// Every request received, with in-flight counts.
    package let log = MockRequestLog()
    /// Per-token request counts of the rate-limited mode, and how many requests it refused.
    package let rateLimiter: MockRateLimiter
    /// While true, every request answers 500 (an outage, for tests of serving stale pages).
    private let outage = Mutex(false)
    /// Tests only: the list's length from now on, in place of `options.totalItems` (a list that changes between walks).
    private let changedTotal = Mutex<Int?>(nil)
    /// Tests only: the page-size cap from now on, in place of `options.maxPageSize` (a deploy that lowers an API's
    /// maximum page size while a cache holds pages of the old size, attack16 M3; or between two windows, retest15 N3).
    private let changedMaxPageSize = Mutex<Int?>(nil)

    /// Largest `mock_total` accepted, so a typo cannot ask for an absurd dataset.
    package static let maxTotal = 100_000_000
    /// How long a `stall@K` page waits before answering.
    package static let stallDuration: Duration = .seconds(60)

    /// The hold of `MockUpstreamOptions.holdUntilInFlight`, if any.
    package let gate: MockGate?

    package init(options: MockUpstreamOptions = MockUpstreamOptions()) {
        self.options = options
        rateLimiter = MockRateLimiter(clock: options.clock)
        gate = options.holdUntilInFlight.map { MockGate(count: $0, holdsFirst: options.holdsFirstRequest) }
    }

    /// The list holds `total` items from now on (unless a request says `mock_total`).
    package func setTotalItems(_ total: Int) {
        changedTotal.withLock { $0 = total }
    }

    /// The page-size cap is `size` from now on.
    package func setMaxPageSize(_ size: Int) {
        changedMaxPageSize.withLock { $0 = size }
    }

    /// Starts or ends an outage: every request answers 500 while it lasts.
    package func setOutage(_ isDown: Bool) {
        outage.withLock { $0 = isDown }
    }

    /// Answers one request; applies the latency (Task.sleep) before answering; records the request.
    package func respond(to request: MockRequest) async -> MockResponse {
        log.begin(request)
        defer { log.end() }
        await gate?.pass()
        await options.releaseGate?.pass()
        let query = MockQuery(target: request.target)
        var limitHeaders: [(name: String, value: String)] = []
        let limitText = query.value("mock_rate_limit")
        let queryLimit = limitText.flatMap(Int.init).flatMap { (1...1_000_000).contains($0) ? MockRateLimiter.Limit(requests: $0) : nil }
        if let limitText, queryLimit == nil { return MockErrors.badOption("mock_rate_limit", limitText) }
        if let limit = queryLimit ?? options.rateLimit {
            // Counted on arrival, as real APIs do: a refused request still costs its place in the window.
            let decision = rateLimiter.admit(token: request.header("Authorization") ?? "", limit: limit)
            guard decision.isAllowed else {
                var refused = MockErrors.rateLimitExceeded()
                for header in decision.headers { refused.setHeader(header.name, header.value) }
                return request.method == "HEAD" ? refused.headOnly() : refused
            }
            limitHeaders = decision.headers
        }

        let latencyText = query.value("mock_latency_ms")
        let latencyMilliseconds = latencyText.flatMap { Int($0) }
        if let latencyMilliseconds, latencyMilliseconds >= 0 {
            try? await Task.sleep(for: .milliseconds(latencyMilliseconds))
        } else if options.latency > .zero {
            try? await Task.sleep(for: options.latency)
        }

        if outage.withLock({ $0 }) { return MockErrors.internalError() }
        let response = await answer(request, query, latencyIsValid: latencyText == nil || (latencyMilliseconds ?? -1) >= 0)
        var validated = Self.validated(response, ifNoneMatch: request.header("If-None-Match"))
        for header in limitHeaders { validated.setHeader(header.name, header.value) }
        return request.method == "HEAD" ? validated.headOnly() : validated
    }

    /// A 200 gets a strong `ETag` derived from its body (so the same page always has the same one), and a request
    /// whose `If-None-Match` names it gets a 304 without a body, as real APIs such as GitHub's answer.
    private static func validated(_ response: MockResponse, ifNoneMatch: String?) -> MockResponse {
        guard response.status == 200 else { return response }
        let etag = "\"" + Self.fingerprint(response.body) + "\""
        var tagged = response
        tagged.setHeader("ETag", etag)
        guard let ifNoneMatch, AggregateETag.matches(ifNoneMatch: [ifNoneMatch], etag: etag) else { return tagged }
        return MockResponse(status: 304, headers: [(name: "ETag", value: etag)])
    }

    /// FNV-1a (64-bit) of a body, in hex: enough to tell the mock's pages apart, and cheap even in a debug build,
    /// where the test suite runs the mock for every page it fetches.
    package static func fingerprint(_ body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        body.withUnsafeBufferPointer { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// RFC 3986 §2.3: what a percent-encoder leaves as it is (Python's `quote` with `safe=""`).
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Every service also answers under this prefix with a redirect to its own path (`/moved/eve/items` → `/eve/items`).
    package static let movedPrefix = "/moved/"

    private func answer(_ request: MockRequest, _ query: MockQuery, latencyIsValid: Bool) async -> MockResponse {
        if let service = MockService.appendingSlash(to: query.path) {
            // Django's APPEND_SLASH: a relative Location with the query kept.
            let target = service.path + (request.target.firstIndex(of: "?").map { String(request.target[$0...]) } ?? "")
            return MockErrors.appendSlash(target)
        }
        if query.path.hasPrefix(Self.movedPrefix), MockService(path: String(query.path.dropFirst(Self.movedPrefix.count - 1))) != nil {
            // A resource that moved (a renamed API version): a path-absolute Location with the query kept. Its pages'
            // relative links are relative to where it moved (RFC 3986 §5.1.3), which the old path redirects to again.
            return MockErrors.appendSlash(String(request.target.dropFirst(Self.movedPrefix.count - 1)))
        }
        if MockService(path: query.path) != nil, let host = query.value("mock_leak_to") {
            // A redirect to `host` whose URL carries the credential the request sent, percent-encoded, under a name no
            // redaction rule knows (a signed download link; attack14 M5).
            // (Or the `api_key` of the query, as a route's own URL may carry it: review19 B3.)
            let sent = query.value("api_key") ?? request.header("Authorization")?.split(separator: " ").last.map(String.init) ?? ""
            return MockErrors.appendSlash("http://\(host)/?x=" + (sent.addingPercentEncoding(withAllowedCharacters: Self.unreserved) ?? sent))
        }
        guard let service = MockService(path: query.path) else { return MockErrors.notFound(path: query.path) }
        guard request.method == "GET" || request.method == "HEAD" else { return MockErrors.methodNotAllowed() }
        // A token the mock rejects: any whose credential starts with "bad" (`Authorization: Bearer bad-token`); one
        // starting "bad-echo" is quoted back in the challenge, as some gateways do (attack11 M1).
        if let authorization = request.header("Authorization"), let token = authorization.split(separator: " ").last,
            token.hasPrefix("bad")
        {
            return MockErrors.unauthorized(service, echoing: token.hasPrefix("bad-echo") ? String(token) : nil)
        }
        if service == .jsonapi, !MockAccept.admits(request.header("Accept"), MockAccept.jsonAPI) {
            return MockErrors.notAcceptable()
        }
        guard latencyIsValid else {
            return MockErrors.badOption("mock_latency_ms", query.value("mock_latency_ms") ?? "")
        }
        var total = changedTotal.withLock { $0 } ?? options.totalItems
        if let text = query.value("mock_total") {
            guard let value = Int(text), value >= 0, value <= Self.maxTotal else {
                return MockErrors.badOption("mock_total", text)
            }
            total = value
        }
        guard let faults = MockFaults(parsing: query.value("mock_fault")) else {
            return MockErrors.badOption("mock_fault", query.value("mock_fault") ?? "")
        }

        // A silent cap on the page size below the route's (`mock_cap=N`): PostgREST's `db-max-rows`, JupyterHub's 200
        // under a larger limit asked (review22 H2, M1).
        var maxPageSize = max(1, changedMaxPageSize.withLock { $0 } ?? options.maxPageSize)
        if let text = query.value("mock_cap") {
            guard let cap = Int(text), cap >= 1 else { return MockErrors.badOption("mock_cap", text) }
            maxPageSize = min(maxPageSize, cap)
        }
        let context = MockContext(
            query: query,
            host: request.header("Host") ?? "localhost",
            defaultPageSize: min(max(1, options.pageSize), maxPageSize),
            maxPageSize: maxPageSize,
            total: max(0, total),
            scheme: request.header("X-Forwarded-Proto")?.lowercased() == "https" ? "https" : "http",
            accept: request.header("Accept"))
        var window: MockWindow
        switch service.window(in: context) {
        case .window(let parsed): window = parsed
        case .reply(let reply): return reply
        }
        if let text = query.value("mock_period") {
            guard let period = Int(text), period >= 1 else { return MockErrors.badOption("mock_period", text) }
            window.period = period
        }
        if let text = query.value("mock_hide_every") {
            guard let every = Int(text), every >= 1 else { return MockErrors.badOption("mock_hide_every", text) }
            window.hidingEvery = every
        }
        if let text = query.value("mock_show_every") {
            guard let every = Int(text), every >= 1 else { return MockErrors.badOption("mock_show_every", text) }
            window.showingEvery = every
        }

        // A list that changes after its first page was served, or whose count is not the truth (review17 B5/B10).
        if let text = query.value("mock_head_growth") {
            guard let growth = Int(text), (0...Self.maxTotal).contains(growth) else { return MockErrors.badOption("mock_head_growth", text) }
            if window.offset > 0 { (window.headGrowth, window.total) = (growth, window.total + growth) }
        }
        if let text = query.value("mock_tail_growth") {
            guard let growth = Int(text), (0...Self.maxTotal).contains(growth) else { return MockErrors.badOption("mock_tail_growth", text) }
            if window.offset > 0 { window.total += growth }
        }
        if let text = query.value("mock_count_percent") {
            guard let percent = Int(text), (0...1000).contains(percent) else { return MockErrors.badOption("mock_count_percent", text) }
            window.statedTotal = window.total * percent / 100
        }
        // A search engine's estimate, which moves with the page while no item does (Meilisearch's `estimatedTotalHits`;
        // review21 F3): page N states D × (N − 1) more than page 1.
        if let text = query.value("mock_count_drift") {
            guard let drift = Int(text), (-1000...1000).contains(drift) else { return MockErrors.badOption("mock_count_drift", text) }
            window.statedTotal = max(0, window.countStated + drift * (window.page - 1))
        }

        // Django's `Paginator.get_page()` (hand-written JSON views): a page past the end is the last page again
        // (`mock_past_end=last`; attack7 F3, review21 F1). `404`: a 404 there, as Rails' and Laravel's hand-written views
        // and DRF's pages answer, on any service (pastend21); `empty`: the service's own answer (mostly an empty page).
        if let text = query.value("mock_past_end") {
            guard ["last", "404", "empty"].contains(text) else { return MockErrors.badOption("mock_past_end", text) }
            if text == "404", window.offset > 0, window.offset >= window.total { return MockErrors.status(404) }
            if text == "last", window.total > 0, window.offset >= window.total {
                let lastPage = (window.total - 1) / window.size + 1
                // Cut and filtered as every page is: an upstream that hides items from its pages hides them from its
                // last page answered again (review27 R4). A series with no id (`mock_period`) repeats its own last
                // page, not the plain items (review25 LOW).
                let (hiding, showing, period) = (window.hidingEvery, window.showingEvery, window.period)
                window = MockWindow(page: lastPage, size: window.size, total: window.total)
                (window.hidingEvery, window.showingEvery, window.period) = (hiding, showing, period)
            }
        }

        let page = window.pageIndex
        if faults.has(.stall, page: page) {
            do {
                try await Task.sleep(for: Self.stallDuration)
            } catch {
                return MockErrors.stallCancelled()
            }
        }
        if faults.has(.status500, page: page) {
            return MockErrors.internalError()
        }
        if faults.has(.transient500, page: page), log.fireOnce("transient500 " + request.target) {
            return MockErrors.internalError()
        }
        for (kind, status) in [(MockFaults.Kind.transient408, 408), (.transient522, 522)]
        where faults.has(kind, page: page) && log.fireOnce("\(kind.rawValue) " + request.target) {
            return MockErrors.status(status)
        }
        if faults.has(.status501, page: page) {
            return MockErrors.status(501)
        }
        if faults.has(.big503, page: page), log.fireOnce("big503 " + request.target) {
            return MockErrors.bigUnavailable()
        }
        if faults.has(.status403, page: page) {
            return MockErrors.forbidden()
        }
        if faults.has(.status429, page: page), log.fireOnce("status429 " + request.target) {
            return MockErrors.tooManyRequests()
        }
        var response = MockWireFormats.render(service, window, context, next: faults.nextLink(page: page))
        if faults.has(.reset, page: page) { response.closesAfterBodyBytes = response.body.count / 2 }
        return faults.has(.malformed, page: page) ? response.replacingBody(MockFaults.truncated(response.body)) : response
    }
}

extension MockResponse {
    /// The response to a HEAD: same status and headers (Content-Length of the GET body), no body.
    fileprivate func headOnly() -> MockResponse {
        var copy = self
        copy.body = []
        return copy
    }
}

import Foundation
import PageProxyCore

/// How long a merged answer may be kept by a cache in front of PageProxy (nginx, Varnish, a CDN, a browser), from
/// the freshness of its pages (RFC 9111; DESIGN.md "Outputs").
///
/// - `Cache-Control: max-age=N`: N is the least remaining freshness of the pages, in whole seconds. A stored page
///   counts until its entry goes stale; a page that was not stored (the cache off, a route TTL of 0) counts its
///   upstream `Cache-Control` or the route's TTL from now.
/// - `max-age=0, no-cache` when a page must be revalidated before any reuse: its remaining freshness is zero (the
///   upstream said `no-cache`, or it was served stale because the upstream failed).
/// - `no-store` when the upstream said `no-store` for any page.
/// - `private`, when credentials went upstream for this client (RFC 9111 §5.2.2.7): the client's own headers were
///   forwarded (`forwardHeaders`), or any page's upstream said `private` (for the identity of whatever credentials
///   PageProxy sent, the route's own included: PageProxy keeps such pages, in a cache keyed by those credentials,
///   but no shared cache in front of it may). Otherwise the route's configured headers are the same for every
///   client and do not make an answer private.
/// - `Vary`: the request fields that select the answer: `Accept` and the `PageProxy-*` control fields (they choose
///   the format, the limits, the window and the fields), and every `forwardHeaders` name (RFC 9110 §12.5.5).
/// - `Age: 0`: the merged answer is made by PageProxy as it answers, and max-age is already net of its pages' ages
///   (caches that ignore `Age`, as nginx does, then keep it exactly as long as the others).
///
/// A value: a request's `CacheTally` keeps it under its own lock (issue 13: an object and a lock of its own were an
/// allocation a request and a second lock a page).
struct AnswerFreshness: Sendable {
    /// The earliest instant at which a page stops being fresh.
    private var freshUntil = Date.distantFuture
    private var pages = 0
    private var noStore = false
    /// A page's upstream said `private`.
    private(set) var upstreamPrivate = false
    /// What `now` is when a caller does not say (the page cache's clock).
    private let clock: PageProxyClock

    init(clock: PageProxyClock = .system) {
        self.clock = clock
    }

    /// Request fields that select which answer a URL gets, whatever the route: a cache in front that left one out
    /// would give one client's window or field selection to everyone (RFC 9110 §12.5.5).
    static let controlFields = ["Accept"] + ProxyControls.answerSelectingHeaders

    /// One page of the answer, as the cache handed it over at `now` (by default, the clock's now).
    /// - Parameter stored: the page's stored version, when it was stored (`freshUntil` is then its own).
    mutating func record(
        response: UpstreamResponse, outcome: CacheOutcome, freshUntil: Date?, stored: CachingPageSource.StoredVersion? = nil, routeTTL: Duration,
        now: Date? = nil
    ) {
        // A page as the store holds it counts until its entry goes stale; the store keeps no page its upstream said
        // `no-store` for, so its headers need no second reading (issue 13: parsing them was a part of every hit).
        // Nor its `private`: the stored version remembers it (`StoredVersion.isPrivate`).
        if let freshUntil, outcome != .stale {
            record(freshUntil: freshUntil, isPrivate: stored?.isPrivate ?? false)
            return
        }
        let now = now ?? clock.wallNow()
        let upstream = CacheFreshness(headers: response.headers, routeTTL: routeTTL, now: now)
        // A stale page was served because the upstream failed: it is due for revalidation now.
        let until = outcome == .stale ? now : freshUntil ?? now.addingTimeInterval(upstream.lifetime.timeInterval)
        record(freshUntil: until, noStore: !upstream.isStorable, isPrivate: upstream.isPrivate)
    }

    /// A page (or a memoized answer's pages) fresh until `freshUntil`; `isPrivate` if its upstream said `private`.
    mutating func record(freshUntil: Date, noStore: Bool = false, isPrivate: Bool = false) {
        pages += 1
        self.freshUntil = min(self.freshUntil, freshUntil)
        self.noStore = self.noStore || noStore
        upstreamPrivate = upstreamPrivate || isPrivate
    }

    /// The `Cache-Control` value at `now`; with `isPrivate` (the client's headers were forwarded) or a page its
    /// upstream marked `private`, only a private cache may keep the answer.
    func cacheControl(at now: Date, isPrivate: Bool) -> String {
        if noStore { return "no-store" }
        return Self.cacheControl(freshUntil: pages == 0 ? nil : freshUntil, at: now, isPrivate: isPrivate || upstreamPrivate)
    }

    /// The `Cache-Control` value at `now` of an answer whose pages are fresh until `freshUntil` (nil: no page).
    static func cacheControl(freshUntil: Date?, at now: Date, isPrivate: Bool) -> String {
        // RFC 9111 §1.2.2 — delta-seconds, rounded down so that no cache keeps a page past its freshness.
        let seconds = freshUntil.map { Int(min(max(0, $0.timeIntervalSince(now)), 2_147_483_648).rounded(.down)) } ?? 0
        let freshness = seconds == 0 ? "max-age=0, no-cache" : "max-age=\(seconds)"
        return isPrivate ? "private, " + freshness : freshness
    }

    /// Sets `Cache-Control`, `Vary` and `Age` on a merged answer (its 200 or its 304), with what its plan worked out
    /// once (`RequestPlan.isPrivate`, `RequestPlan.vary`: `isPrivate(route:request:)`, `vary(route:)`).
    func addHeaders(to headers: inout HTTPHeaders, isPrivate: Bool, vary: String, now: Date? = nil) {
        Self.addHeaders(to: &headers, cacheControl: cacheControl(at: now ?? clock.wallNow(), isPrivate: isPrivate), vary: vary)
    }

    /// Sets `Cache-Control` to `cacheControl`, `Vary` to `vary` and `Age` to 0.
    static func addHeaders(to headers: inout HTTPHeaders, cacheControl: String, vary: String) {
        headers.set("Cache-Control", cacheControl)
        headers.set("Vary", vary)
        headers.set("Age", "0")
    }

    /// Whether `request` sent any of the fields `route` forwards: its answer is then the client's alone.
    static func isPrivate(route: RouteConfig, request: HTTPRequestHead) -> Bool {
        route.forwardHeaders.contains { UpstreamHeaders.forwards($0, from: request) } || carriesQueryCredential(request)
    }

    /// Whether the client's query names a credential that goes upstream with it (`access_token`, `api_key`, …: the
    /// names that identify a caller, `OriginBudget.credentialQueryNames`). RFC 6750 §2.3 asks for `private` on a 2xx
    /// to a request with `access_token` in its URI (attack16 L4). Not every secret-looking name (`isSecretName`): a
    /// cursor (`pageToken`) or a `sort_key` would make public answers private.
    private static func carriesQueryCredential(_ request: HTTPRequestHead) -> Bool {
        guard let query = request.query, !query.isEmpty else { return false }
        return query.split(whereSeparator: { $0 == "&" || $0 == ";" }).contains { pair in
            let name = pair.prefix { $0 != "=" }
            let decoded = PageURL.decodeQueryComponent(String(name)) ?? String(name)
            return OriginBudget.credentialQueryNames.contains(decoded.lowercased())
        }
    }

    /// The `Vary` value of `route`'s answers.
    static func vary(route: RouteConfig) -> String {
        (controlFields + route.forwardHeaders).joined(separator: ", ")
    }
}

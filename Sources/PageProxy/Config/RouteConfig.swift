import PageProxyCore

/// One proxied upstream collection, served at `/<name>`.
struct RouteConfig: Sendable {
    /// 1–64 characters of `[A-Za-z0-9._-]`, unique, not `healthz`, `readyz` or `metrics`.
    var name: String
    var upstream: UpstreamURL
    var pagination: RoutePagination
    /// `"queryEncoding"`: the pagination parameters that are members of a Rison or JSON query parameter (`q.page`),
    /// lifted out of each request's query and folded back into what is sent (`QueryMembers`); nil for none.
    var queryMembers: QueryMembers? = nil
    /// Where the items array sits in each page's body; the root for a bare array.
    var itemsPath: JSONPath
    /// How many pages may be fetched at once.
    var concurrency: Int
    var maxPages: Int
    /// Stop after this many items; `nil` for no limit.
    var maxItems: Int?
    var pageTimeout: Duration
    var totalTimeout: Duration
    /// Sent with every upstream request, in file order, with `${VAR}` already expanded.
    var headers: [(name: String, value: String)]
    /// Client request headers passed on to the upstream, as spelled in the file.
    var forwardHeaders: [String]
    /// How long an aggregated response stays fresh in the cache; zero disables caching.
    var ttl: Duration
    /// Serve a stale cached response when the upstream fails.
    var staleIfError: Bool
    var maxPageBytes: Int
    /// Retries of one failed page fetch.
    var retries: Int
    /// PEM file of trusted CAs for an `https` upstream; `nil` for the system trust store.
    var caFile: String?
    /// The largest merged JSON answer; past it the answer is a 507 that points at NDJSON.
    var maxMergedBytes = 1 << 30
    /// The longest `Retry-After` (or rate-limit reset) waited out before a retry; a longer one ends the walk with the
    /// upstream's answer at once.
    var maxRetryAfter: Duration = .seconds(30)
    /// The limits of the upstream origin's shared request budget (by default: follow its rate-limit fields).
    var originBudget = OriginBudget.Configuration()
}

import Foundation
import PageProxyCore

/// What a client's `Cache-Control` (and `Pragma`) asks of the page cache (RFC 9111 §5.2.1, §5.4).
struct ClientCacheDirectives: Sendable, Equatable {
    /// `no-cache`, `max-age=0` (in any spelling of 0: `00`, `"0"`), or `Pragma: no-cache`: revalidate every page.
    var revalidates = false
    /// `max-age=N`, N > 0: a page stored longer ago than N seconds is revalidated.
    var maxAge: Duration?
    /// `min-fresh=N`: a page fresh for less than N more seconds is revalidated.
    var minFresh: Duration?
    /// `only-if-cached`: answer from the cache or 504, never asking the upstream.
    var onlyIfCached = false
    /// `no-store`: store nothing this request fetches, nor memoize its answer.
    var noStore = false

    init() {}

    init(_ headers: HTTPHeaders) {
        let directives = CacheFreshness.directives(headers)
        // An invalid `max-age` asks for nothing (RFC 9111 §5.2.1.1 gives no meaning to one).
        let maxAge = directives["max-age"].flatMap(CacheFreshness.seconds)
        revalidates = directives["no-cache"] != nil || maxAge == 0 || headers.tokens("Pragma").contains("no-cache")
        self.maxAge = maxAge.flatMap { $0 > 0 ? .seconds($0) : nil }
        minFresh = directives["min-fresh"].flatMap(CacheFreshness.seconds).map { .seconds($0) }
        onlyIfCached = directives["only-if-cached"] != nil
        noStore = directives["no-store"] != nil
    }

    /// Whether the request judges pages by limits of its own (or stores nothing): the memo, made for requests
    /// without any, neither answers it nor keeps its answer.
    var bypassesMemo: Bool { maxAge != nil || minFresh != nil || onlyIfCached || noStore }

    /// `policy` with these directives' limits.
    func applied(to policy: CachePolicy) -> CachePolicy {
        var policy = policy
        policy.maxAge = maxAge
        policy.minFresh = minFresh
        policy.onlyIfCached = onlyIfCached
        policy.noStore = noStore
        return policy
    }
}

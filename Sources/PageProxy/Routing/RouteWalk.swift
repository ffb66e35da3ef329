import PageProxyCore
import PageProxyServer

/// The walk of one client request: over the route's scheme, or, for `scheme: "auto"`, over the one detected from
/// the first page (fetched once), which the answer then names in its headers and the request log.
///
/// A class: handed to the renderers and held across their suspensions, it is one reference (issue 13: copying and
/// destroying the value was 3 % of a 10 KB walk). Used by one request's task only.
final class RouteWalk {
    let walker: PageWalker
    /// For an auto route: `PageProxy-Scheme: auto->link-header` and `PageProxy-Items-Path`. Its total is stated by
    /// `RequestedItems` (given `detected.total`), which leaves it out when the walk contradicts it.
    let headers: HTTPHeaders
    /// For an auto route, what was detected; nil for a route with a scheme of its own.
    let detected: DetectedPagination?

    init(walker: PageWalker, headers: HTTPHeaders, detected: DetectedPagination? = nil) {
        self.walker = walker
        self.headers = headers
        self.detected = detected
    }

    /// The scheme walked: the route's own or the detected one (nil for a single page).
    func scheme(of route: RouteConfig) -> PaginationScheme? {
        if case .scheme(let scheme) = route.pagination { return scheme }
        return detected?.scheme
    }

    /// Starts the walk; an auto route's detection is noted in `record` (`scheme`, `items_path`), failed or not.
    /// - Parameters:
    ///   - options: taken, not copied (issue 13: copying and destroying the plan's options was 1–2 % of a walk of one
    ///     cached page).
    ///   - strategy: the route's own scheme's, when the caller has it already (`RequestPlan.strategy`); nil: made here.
    static func start(
        route: RouteConfig, base: PageURL, strategy: (any PaginationStrategy)? = nil, options: consuming PageWalker.Options,
        fetch: @escaping PageFetcher, record: inout RequestRecord
    ) async throws(PaginationError) -> RouteWalk {
        switch route.pagination {
        case .scheme(let scheme):
            let walker = PageWalker(base: base, strategy: strategy ?? scheme.makeStrategy(), options: options, fetch: fetch)
            return RouteWalk(walker: walker, headers: HTTPHeaders())
        case .auto(let itemsPath):
            record.scheme = "auto"
            // The first page, fetched to detect the scheme, is replayed to the walk: it is not read (and counted) again.
            var options = options
            if let read = options.cachedPage {
                options.cachedPage = { url, number in number == 1 ? nil : read(url, number) }
            }
            let (walker, detected) = try await AutoPagination.start(base: base, itemsPath: itemsPath, options: options, fetch: fetch)
            var headers = HTTPHeaders()
            guard let detected else { return RouteWalk(walker: walker, headers: headers) }
            headers.set("PageProxy-Scheme", detected.headerValue)
            headers.set("PageProxy-Items-Path", detected.itemsPath.description)
            record.scheme = detected.headerValue
            record.itemsPath = detected.itemsPath.description
            return RouteWalk(walker: walker, headers: headers, detected: detected)
        }
    }
}

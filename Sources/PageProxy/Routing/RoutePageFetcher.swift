import PageProxyCore

/// The fetcher a route's walk asks for pages: through the shared page cache and the request's own retrying
/// transport, counting each page's cache outcome in the request's tally and the metrics.
enum RoutePageFetcher {
    static func make(
        plan: RequestPlan, transport: RetryingTransport, pages: CachingPageSource, metrics: Metrics, tally: CacheTally
    ) -> PageFetcher {
        let route = plan.route
        let (timeout, maxBytes, routeName, caFile, ttl) = (route.pageTimeout, route.maxPageBytes, route.name, route.caFile, route.ttl)
        let (headers, policy, scan) = (plan.upstreamHeaders, plan.cachePolicy, plan.scanPaths)
        return { url, number throws(PaginationError) in
            let started = ContinuousClock.now
            do throws(UpstreamError) {
                let fetched = try await pages.fetch(
                    UpstreamRequest(url: url, headers: headers, caFile: caFile), policy: policy, transport: transport, timeout: timeout,
                    maxBodyBytes: maxBytes, scan: scan)
                let (response, source) = (fetched.response, fetched.outcome)
                tally.record(source, stored: fetched.stored)
                tally.freshness.record(response: response, outcome: source, freshUntil: fetched.stored?.freshUntil, routeTTL: ttl)
                metrics.cacheOutcome(route: routeName, outcome: source.rawValue)
                // A hit or a stale page made no upstream request that answered.
                guard source != .hit && source != .stale else { return response }
                let code = response.status.code
                let outcome = (200..<300).contains(code) ? "ok" : code < 500 ? "http_4xx" : "http_5xx"
                metrics.pageFetched(route: routeName, outcome: outcome, duration: .now - started)
                return response
            } catch {
                // A fetch cancelled because its client left is no upstream failure (its socket was closed under it).
                if error == .cancelled || Task.isCancelled {
                    metrics.pageFetched(route: routeName, outcome: "cancelled", duration: .now - started)
                    throw .cancelled
                }
                let outcome = if case .timedOut = error { "timeout" } else { "error" }
                metrics.pageFetched(route: routeName, outcome: outcome, duration: .now - started)
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
    }
}

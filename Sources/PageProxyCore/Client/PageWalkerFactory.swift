/// Starts the walks of one ``PageProxyClient``: each with its own retry budget and deadline, all through the
/// client's transport and page cache (so concurrent fetches of one page are collapsed across walks), and with what
/// `lookahead` learned about upstreams' links in earlier walks.
struct PageWalkerFactory: Sendable {
    let transport: any UpstreamTransport
    let lookahead: LookaheadMemory
    let pages: CachingPageSource
    let cachePolicy: CachePolicy
    let retry: RetryPolicy
    let walkTimeout: Duration

    /// A new walk over `source`, from its first page.
    func makeWalker(for source: PaginatedSource) -> PageWalker {
        var options = PageWalker.Options()
        options.itemsPath = source.itemsPath
        options.concurrency = source.limits.concurrency
        options.maxPages = source.limits.maxPages
        options.lookaheadMemory = lookahead
        let headers = HTTPHeaders(source.headers.map { ($0.name, $0.value) })
        let timeout = source.limits.pageTimeout
        let maxBytes = source.limits.maxPageBytes
        let pages = self.pages
        let policy = cachePolicy
        // As in the server: one retry budget and one deadline for all the pages of one walk.
        let retrying = RetryingTransport(base: transport, policy: retry, deadline: .now + walkTimeout)
        return PageWalker(base: source.url, scheme: source.scheme, options: options) { url, number throws(PaginationError) in
            do throws(UpstreamError) {
                let request = UpstreamRequest(url: url, headers: headers)
                return try await pages.fetch(request, policy: policy, transport: retrying, timeout: timeout, maxBodyBytes: maxBytes).response
            } catch {
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
    }
}

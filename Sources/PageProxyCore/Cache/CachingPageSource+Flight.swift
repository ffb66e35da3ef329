import Foundation

/// A page's collapsed fetch (`FetchCollapser`): a request's tries, led or joined, within its own limits, and what it
/// serves once they are over.
extension CachingPageSource {
    /// One try of `request` for a flight (`transport.attempt`), told to `onTry` once it was sent (one the origin's
    /// budget refused was not: no upstream request).
    func tried(
        _ request: UpstreamRequest, via transport: any UpstreamTransport, maxBodyBytes: Int, flight: FlightDeadline, isRetry: Bool,
        onTry: UpstreamTry.Report?
    ) async -> Result<UpstreamResponse, UpstreamError> {
        guard let onTry else { return await transport.attempt(request, maxBodyBytes: maxBodyBytes, flight: flight) }
        let (started, sends) = (clock.now(), flight.sendCount)
        let result = await transport.attempt(request, maxBodyBytes: maxBodyBytes, flight: flight)
        guard flight.sendCount > sends else { return result }
        let now = clock.now()
        var told = result.map(\.status.code)
        // Cut because every request waiting for it left: a timeout when one of them had run out of time.
        if case .failure = result, Task.isCancelled {
            told = .failure(flight.outlivedAWaiter(at: now) ? .timedOut(origin: request.url.origin.description) : .cancelled)
        }
        let conditional = request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since")
        onTry(UpstreamTry(result: told, duration: now - started, isRetry: isRetry, isConditional: conditional))
        return result
    }

    /// `request`'s page from the one flight of `key` in `flights` (led or joined), with this request's own tries.
    /// - Parameter work: the flight's, should this request lead it; told whether this request had tried the page before.
    func collapsed(
        _ key: CacheKey, in flights: Flights, request: UpstreamRequest, cached: CacheEntry?, policy: CachePolicy,
        transport: any UpstreamTransport, timeout: Duration, maxBodyBytes: Int,
        work: @escaping @Sendable (FlightDeadline, _ isRetry: Bool) async -> Result<CachedResponse, UpstreamError>
    ) async throws(UpstreamError) -> Fetched {
        // A request that joins another's fetch keeps its own limits (issue 13). A flight makes at most one upstream
        // request, not cut at any one request's deadline: it lives until the last request waiting for it gives up.
        // Each request counts the tries it saw, its own or joined, and retries with its own budget, backoff and
        // deadline (leading or joining the next flight); it serves a stale page by its own route's rule. It waits for a
        // try no longer than its own page timeout (from the try's sending, or its joining), as its own try would run;
        // the try lives for the longest of its waiters'.
        var (tries, storedMeanwhile, refusedForOthers) = (0, 0, 0)
        while true {
            let isRetry = tries > 0
            let result = await flight(
                for: key, in: flights, deadline: transport.deadline, pageTimeout: timeout, origin: request.url.origin, work: { await work($0, isRetry) })
            guard let result else {
                guard let deadline = transport.deadline, clock.now() >= deadline else { throw .cancelled }
                // Out of time is a failure the route's stale-if-error covers.
                if let stale = staleFetched(cached, policy: policy) { return stale }
                throw .timedOut(origin: request.url.origin.description)
            }
            if case .success(let answer) = result, !answer.askedUpstream {
                // Stored by another fetch since this request looked: no try of its own, but a request that must
                // revalidate asks again (a few times at most: it leads a flight as soon as none is under way).
                storedMeanwhile += 1
                guard policy.forceRevalidate, storedMeanwhile < Self.maxRoundsWithoutTry, !Task.isCancelled else {
                    // Found by the lookup of a flight another route may have led: taken by this route's limits too.
                    return try Self.taken(answer.fetched, policy: policy, maxBodyBytes: maxBodyBytes, origin: request.url.origin)
                }
                continue
            }
            // Refused by the smaller page size limit of another route that led the flight (routes on one upstream URL
            // share flights): no answer to this request, which asks for the page itself (review20 F3). Not a try of its
            // own: no retry spent, and a few rounds at most, as for a page stored meanwhile.
            if case .failure(.responseTooLarge(_, let limit)) = result, limit < maxBodyBytes {
                refusedForOthers += 1
                if refusedForOthers < Self.maxRoundsWithoutTry, !Task.isCancelled { continue }
            }
            tries += 1
            if !Task.isCancelled, await transport.retries(after: result.map(\.fetched.response), attempt: tries) { continue }
            return try served(result, cached: cached, policy: policy, maxBodyBytes: maxBodyBytes, origin: request.url.origin)
        }
    }

    /// How many times a request that must revalidate takes a page another fetch stored meanwhile as not enough,
    /// at most, before it is served that page.
    static let maxRoundsWithoutTry = 4

    /// How a caller's wait for a flight ended.
    private enum FlightWait: Sendable {
        case answered(Result<CachedResponse, UpstreamError>?)
        case pageTimedOut
        case deadlinePassed
    }

    /// The result of the one fetch of `key` (started now or joined): nil if this caller was cancelled or its
    /// `deadline` passed first; a timeout if its page time ended first (`FlightWaiter`: `pageTimeout` from the try's
    /// sending, or from this caller's joining a try already sent), as its own try would have. Leaving stops this
    /// caller's wait, and the fetch if no one else waits. The fetch is handed the latest deadline among its callers.
    private func flight(
        for key: CacheKey, in collapser: Flights, deadline: ContinuousClock.Instant?, pageTimeout: Duration, origin: PageURL.Origin,
        work: @escaping @Sendable (FlightDeadline) async -> Result<CachedResponse, UpstreamError>
    ) async -> Result<CachedResponse, UpstreamError>? {
        let clock = self.clock
        let waiter = FlightWaiter(pageTimeout: pageTimeout, clock: clock)
        let ended = await withTaskGroup(of: FlightWait?.self) { group in
            group.addTask { .answered(await collapser.value(for: key, until: deadline, as: waiter, work: work).value) }
            group.addTask {
                guard let end = await waiter.pageTimeEnd(), (try? await clock.sleep(end)) != nil else { return nil }
                return .pageTimedOut
            }
            if let deadline {
                group.addTask { (try? await clock.sleep(deadline)) != nil ? .deadlinePassed : nil }
            }
            // A timer ends with nil only when this caller is cancelled; its wait in the collapser then ends too.
            var first: FlightWait?
            while first == nil, let next = await group.next() { first = next }
            group.cancelAll()
            return first
        }
        switch ended {
        case .answered(let result): return result
        case .pageTimedOut: return .failure(.timedOut(origin: origin.description))
        case .deadlinePassed, nil: return nil
        }
    }

    /// What a request serves once its tries are over: the last one's answer, or a stale page where its route allows
    /// one for a failure (an error or a 5xx), or the error.
    private func served(
        _ result: Result<CachedResponse, UpstreamError>, cached: CacheEntry?, policy: CachePolicy, maxBodyBytes: Int, origin: PageURL.Origin
    ) throws(UpstreamError) -> Fetched {
        switch result {
        case .success(let answer):
            let failed = answer.fetched.outcome == .miss && answer.fetched.response.status.code >= 500
            if failed, let stale = staleFetched(cached, policy: policy) { return stale }
            return try Self.taken(answer.fetched, policy: policy, maxBodyBytes: maxBodyBytes, origin: origin)
        case .failure(let error):
            if let stale = staleFetched(cached, policy: policy) { return stale }
            throw error
        }
    }

    /// A page a flight brought, as this request takes it: the flight may have been another route's, run with its
    /// limits (review): no larger than this route's pages may be, and fresh no longer than its TTL allows (the
    /// answer's `Cache-Control` and the memo follow it).
    private static func taken(_ fetched: Fetched, policy: CachePolicy, maxBodyBytes: Int, origin: PageURL.Origin) throws(UpstreamError) -> Fetched {
        let limit = min(maxBodyBytes, policy.maxBodyBytes)
        guard fetched.response.bodyCount <= limit else { throw .responseTooLarge(origin: origin.description, limit: limit) }
        var taken = fetched
        taken.stored = fetched.stored?.judged(routeTTL: policy.ttl)
        return taken
    }

    /// The page to serve when the upstream failed, stale, if the route allows it and the upstream did not forbid it:
    /// not `must-revalidate`, and within its `stale-if-error=N` (RFC 5861 §4: N seconds past its freshness; attack15
    /// U1: it was ignored, a page limited to 0 s was served stale) when it says one.
    private func staleFetched(_ cached: CacheEntry?, policy: CachePolicy) -> Fetched? {
        guard policy.staleIfError, let cached, !cached.mustRevalidate else { return nil }
        if let limit = CacheFreshness.staleIfError(cached.headers) {
            let stale = clock.wallNow().timeIntervalSince(cached.freshUntil(routeTTL: policy.ttl))
            guard stale <= limit.timeInterval else { return nil }
        }
        return Fetched(response: cached.response, outcome: .stale)
    }
}

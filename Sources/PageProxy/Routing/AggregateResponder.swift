import Foundation
import PageProxyCore
import PageProxyServer

/// Answers a request for a route: plans it (`RequestPlan`), answers from the memo when it can, else walks the
/// upstream's pages (`RouteWalk`) and writes them as one JSON array (`MergedAnswerRenderer`) or as NDJSON
/// (`NDJSONAnswerRenderer`).
struct AggregateResponder: Sendable {
    let transport: any UpstreamTransport
    /// The page cache shared by every request; the retries stay per request, behind it.
    let pages: CachingPageSource
    let metrics: Metrics
    let merged: MergedAnswerRenderer
    /// Every upstream origin's request budget, shared by all requests.
    let budgets: OriginBudgets
    /// Where `lookahead` walks learn where upstreams' links point, shared by every request.
    var lookahead = LookaheadMemory()

    init(
        transport: any UpstreamTransport, pages: CachingPageSource, metrics: Metrics, spool: MergedSpool, memo: MergedAnswerMemo,
        budgets: OriginBudgets
    ) {
        self.transport = transport
        self.pages = pages
        self.metrics = metrics
        self.merged = MergedAnswerRenderer(spool: spool, memo: memo, metrics: metrics)
        self.budgets = budgets
    }

    func respond(to request: HTTPRequestHead, route: RouteConfig, subpath: String, response: consuming Response) async -> RequestRecord {
        var record = RequestRecord(route: route.name)
        let plan: RequestPlan
        do {
            plan = try RequestPlan(request: request, route: route, subpath: subpath, lookahead: lookahead)
        } catch let error as any HTTPResponseError {
            return await response.send(error, recording: record)
        } catch {
            return await response.send(HTTPError(.internalServerError, code: "internal_error", message: "\(error)"), recording: record)
        }
        if let memoKey = plan.memoKey, !plan.controls.fresh, let answer = merged.memo.answer(for: memoKey, at: Date()) {
            return await merged.render(memoized: answer, plan: plan, record: record, response: response)
        }
        // One retry budget and one deadline for all the pages of this request.
        var retryPolicy = RetryPolicy(budget: route.retries)
        retryPolicy.maxServerDelay = route.maxRetryAfter
        let transport = RetryingTransport(base: self.transport, policy: retryPolicy, deadline: .now + route.totalTimeout, budgets: budgets)
        let tally = CacheTally()
        let fetch = RoutePageFetcher.make(plan: plan, transport: transport, pages: pages, metrics: metrics, tally: tally)
        let walk: RouteWalk
        do {
            walk = try await RouteWalk.start(route: route, base: plan.base, options: plan.options, fetch: fetch, record: &record)
        } catch {
            record = await response.send(walkFailure: error, plan: plan, recording: record)
            return recordWalk(route: route, tally: tally, transport: transport, record: record)
        }
        // DESIGN.md: a client that disconnects cancels its upstream work.
        response.cancelsWhenClientLeaves()
        switch plan.controls.format {
        case .json:
            record = await merged.render(walk: walk, plan: plan, tally: tally, record: record, response: response)
        case .ndjson:
            record = await NDJSONAnswerRenderer.render(walk: walk, plan: plan, tally: tally, record: record, response: response)
        }
        return recordWalk(route: route, tally: tally, transport: transport, record: record)
    }

    /// The walk's cache outcomes and retries, in the request log and the metrics.
    private func recordWalk(route: RouteConfig, tally: CacheTally, transport: RetryingTransport, record: RequestRecord) -> RequestRecord {
        var record = record
        record.cache = tally.summary
        let retries = transport.retriesUsed
        metrics.retried(route: route.name, count: retries)
        if retries > 0 { record.retries = retries }
        return record
    }
}

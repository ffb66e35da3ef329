import PageProxyCore
import PageProxyServer

/// PageProxy's answer to every request: own endpoints, configured routes, and JSON errors for the rest.
struct PageProxyResponder: HTTPResponder {
    let router: Router
    let aggregate: AggregateResponder
    let status: ServiceStatus
    let metrics: Metrics
    /// Plans of recent requests to routes, found by the raw request: a repeat is neither routed nor planned again.
    let plans: RequestPlanCache
    /// Whether short walks of pages in memory are answered on the socket loop too (`AggregateResponder.walkFromMemory`).
    /// Off by default: measured against the same build with it off (BENCHMARKS.md, issue 13 sixth pass), it saved no
    /// CPU a request and cost up to a fifth of the 10 KB walk's requests/s, since every such walk then runs on the one
    /// loop thread instead of the pool's threads (on more cores, the gap grows).
    let walksOnSocketLoop: Bool
    /// Whether a walk of one page whose entry the cache keeps in memory is answered on the socket loop, with no walk
    /// (`AggregateResponder.answerOnePage`), as a memo hit is; `walksOnSocketLoop` answers such walks there too, by a
    /// walk. Off by default: against the same answer on the pool (BENCHMARKS.md, issue 13 seventh pass) it saved
    /// −9 % to +6 % CPU a request and cost the merged walk up to a third of its requests/s in loaded runs, every such
    /// answer then waiting for the one loop thread.
    let answersOnePageOnSocketLoop: Bool

    init(
        router: Router, aggregate: AggregateResponder, status: ServiceStatus, metrics: Metrics, walksOnSocketLoop: Bool = false,
        answersOnePageOnSocketLoop: Bool = false
    ) {
        self.router = router
        self.aggregate = aggregate
        self.status = status
        self.metrics = metrics
        self.walksOnSocketLoop = walksOnSocketLoop
        self.answersOnePageOnSocketLoop = answersOnePageOnSocketLoop
        plans = RequestPlanCache(routes: router.routes)
    }

    /// Exact repeats of small memoized answers (and, with `walksOnSocketLoop`, short walks whose pages are all in
    /// memory) are answered on the socket loop (`respondFromMemory`).
    var answersOnSocketLoop: Bool { true }

    /// A repeat of a planned request (a plan cache hit) whose answer is at most `loopAnswerBytes`: from the memo, from
    /// one page in the cache's memory (`answersOnePageOnSocketLoop`), or (`walksOnSocketLoop`) by a walk of pages all
    /// fresh in the cache's memory (`AggregateResponder.walkFromMemory`); nil for anything else (which `respond`
    /// answers, on the pool).
    func respondFromMemory(to request: HTTPRequestHead, response: inout Response?) async -> RequestRecord? {
        let began = ContinuousClock.now
        guard request.method == .get || request.method == .head, let plan = plans.plan(for: request) else { return nil }
        if let answer = aggregate.memoized(plan) {
            guard Self.answersOnLoop(bodyBytes: answer.bytesOnLoop), let response = response.take() else { return nil }
            metrics.requestStarted()
            return await aggregate.merged.render(
                memoized: answer, plan: plan, began: began, record: RequestRecord(route: plan.route.name), response: response)
        }
        if answersOnePageOnSocketLoop, !walksOnSocketLoop,
            let record = await aggregate.answerOnePage(to: request, plan: plan, began: began, maxBytes: Self.loopAnswerBytes, response: &response)
        {
            // Counted once the answer stands, as below.
            metrics.requestStarted()
            return record
        }
        guard walksOnSocketLoop,
            let record = await aggregate.walkFromMemory(to: request, plan: plan, began: began, maxBytes: Self.loopAnswerBytes, response: &response)
        else { return nil }
        // Counted once the answer stands: a walk that declined is counted by `respond` alone.
        metrics.requestStarted()
        return record
    }

    /// `respondFromMemory`'s memo hit with no task, on the socket loop's thread as its request arrives (issue 13): an
    /// answer in memory of at most `loopAnswerBytes`, by `MergedAnswerRenderer.renderNow`, the same bytes. `.later`, with
    /// either switch on, for anything not in the memo (`respondFromMemory` may walk it); `.notInMemory` otherwise.
    func respondFromMemoryNow(to request: HTTPRequestHead, response: () -> Response) -> MemoryAnswerNow {
        let began = ContinuousClock.now
        guard request.method == .get || request.method == .head, let plan = plans.plan(for: request) else { return .notInMemory }
        guard let answer = aggregate.memoized(plan) else { return answersOnePageOnSocketLoop || walksOnSocketLoop ? .later : .notInMemory }
        // One sent from its file, or past the bound, is not `respondFromMemory`'s either.
        guard Self.answersOnLoop(bodyBytes: answer.bytesOnLoop) else { return .notInMemory }
        metrics.requestStarted()
        return .answered(
            aggregate.merged.renderNow(memoized: answer, plan: plan, began: began, record: RequestRecord(route: plan.route.name), response: response()))
    }

    /// One plan lookup for both (issue 13: a walk on the pool was looked up, and its memo asked, twice): what
    /// `respondFromMemory` answers from the memo, else `respond`'s answer of the plan. With either switch on, the two
    /// calls, in turn.
    func respondPreferringMemory(to request: HTTPRequestHead, response: consuming Response) async -> (record: RequestRecord, fromMemory: Bool)? {
        guard !walksOnSocketLoop, !answersOnePageOnSocketLoop else {
            return await respondFromMemoryThenRespond(to: request, response: response)
        }
        let began = ContinuousClock.now
        // Anything `respondFromMemory` would not answer, for want of a plan: `respond` routes and plans it.
        guard request.method == .get || request.method == .head, let plan = plans.plan(for: request) else {
            return (await respond(to: request, response: response), false)
        }
        metrics.requestStarted()
        if let answer = aggregate.memoized(plan) {
            let record = await aggregate.merged.render(
                memoized: answer, plan: plan, began: began, record: RequestRecord(route: plan.route.name), response: response)
            return (record, Self.answersOnLoop(bodyBytes: answer.bytesOnLoop))
        }
        return (await aggregate.respond(to: request, plan: plan, began: began, memoAsked: true, response: response), false)
    }

    func refused(status: HTTPStatus, bytes: Int) {
        metrics.requestStarted()
        metrics.requestFinished(route: "", status: status.code, bytes: bytes, duration: .zero)
    }

    func answered(_ record: RequestRecord, status: Int, bytes: Int, duration: Duration) {
        metrics.requestFinished(route: record.route ?? "", status: status, bytes: bytes, duration: duration)
    }

    func respond(to request: HTTPRequestHead, response: consuming Response) async -> RequestRecord {
        metrics.requestStarted()
        // RFC 9110 §9.3.7: `OPTIONS *` asks what the server can do, and `OPTIONS /route` what that resource allows: the
        // same two methods everywhere (attack16 U1: a 405 said the question was not allowed). No CORS headers: a browser's
        // preflight still fails, as it did.
        if request.method == .options {
            var allow = HTTPHeaders()
            allow.set("Allow", "GET, HEAD")
            await response.send(.ok, headers: allow, body: [])
            return RequestRecord()
        }
        guard request.method == .get || request.method == .head else {
            var allow = HTTPHeaders()
            allow.set("Allow", "GET, HEAD")
            return await response.send(
                HTTPError(
                    .methodNotAllowed, code: "method_not_allowed", message: "\(request.method.rawValue) is not supported; use GET or HEAD",
                    headers: allow),
                recording: RequestRecord())
        }
        if let plan = plans.plan(for: request) {
            return await aggregate.respond(to: request, plan: plan, response: response)
        }
        switch router.destination(for: request.path) {
        case .health:
            await sendJSON(.ok, "{\"status\":\"ok\"}\n", response: response)
        case .ready:
            let (code, text) = readiness()
            await sendJSON(code, text, response: response)
        case .metrics:
            var headers = HTTPHeaders()
            headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            headers.set("Cache-Control", "no-store")
            await response.send(.ok, headers: headers, body: Array(metrics.exposition().utf8))
        case .aggregate(let route, let subpath):
            return await aggregate.respond(to: request, route: route, subpath: subpath, plans: plans, response: response)
        case .invalidPath:
            let message = "the path after the route must percent-decode to UTF-8 with no . or .. segment (..;x included), "
                + "and no slash, backslash, NUL or control character inside a segment"
            return await response.send(HTTPError(.badRequest, code: "invalid_path", message: message), recording: RequestRecord())
        case .notFound:
            let known = router.routeNames.joined(separator: ", ")
            return await response.send(
                HTTPError(.notFound, code: "unknown_route", message: "no route matches \(request.path.prefix(200)); routes: \(known)"),
                recording: RequestRecord())
        }
        return RequestRecord()
    }

    /// The largest memoized body written from the socket loop's thread: copying a larger one into the socket would
    /// keep every other connection's events waiting (a MiB takes the loop ~0.2 ms), and on the pool two threads share
    /// such answers.
    static let loopAnswerBytes = 64 << 10

    /// Whether a memoized answer of `bodyBytes` is written from the socket loop's thread.
    static func answersOnLoop(bodyBytes: Int) -> Bool { bodyBytes <= loopAnswerBytes }

    /// `/readyz`: 503 with the reason while starting or draining; 200, naming a disabled cache if there is one.
    private func readiness() -> (HTTPStatus, String) {
        if let reason = status.notReadyReason {
            return (.serviceUnavailable, "{\"status\":\"not_ready\",\"reason\":" + JSONText.string(reason) + "}\n")
        }
        if let cache = status.cacheDisabledReason {
            return (.ok, "{\"status\":\"ready\",\"cache\":" + JSONText.string("disabled: " + cache) + "}\n")
        }
        if status.isCacheEvictingAtStart {
            let note = "evicting: over its bound at the start; new pages are not stored until that is done"
            return (.ok, "{\"status\":\"ready\",\"cache\":" + JSONText.string(note) + "}\n")
        }
        return (.ok, "{\"status\":\"ready\"}\n")
    }

    private func sendJSON(_ status: HTTPStatus, _ text: String, response: consuming Response) async {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json; charset=utf-8")
        headers.set("Cache-Control", "no-store")
        await response.send(status, headers: headers, body: Array(text.utf8))
    }
}

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

    init(router: Router, aggregate: AggregateResponder, status: ServiceStatus, metrics: Metrics) {
        self.router = router
        self.aggregate = aggregate
        self.status = status
        self.metrics = metrics
        plans = RequestPlanCache(routes: router.routes)
    }

    /// Memo hits and the own endpoints are answered on the socket loop; everything that walks moves to the pool.
    var answersOnSocketLoop: Bool { true }

    func refused(status: HTTPStatus, bytes: Int) {
        metrics.requestStarted()
        metrics.requestFinished(route: "", status: status.code, bytes: bytes, duration: .zero)
    }

    func answered(_ record: RequestRecord, status: Int, bytes: Int, duration: Duration) {
        metrics.requestFinished(route: record.route ?? "", status: status, bytes: bytes, duration: duration)
    }

    func respond(to request: HTTPRequestHead, response: consuming Response) async -> RequestRecord {
        metrics.requestStarted()
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
            // An exact repeat of a small memoized answer is answered here, on the socket loop; a walk moves to the pool.
            if let answer = aggregate.memoized(plan) {
                let began = ContinuousClock.now
                guard Self.answersOnLoop(bodyBytes: answer.body.count) else {
                    return await onPool(response) {
                        await aggregate.merged.render(memoized: answer, plan: plan, began: began, record: RequestRecord(route: plan.route.name), response: $0)
                    }
                }
                return await aggregate.merged.render(
                    memoized: answer, plan: plan, began: began, record: RequestRecord(route: plan.route.name), response: response)
            }
            return await onPool(response) { await aggregate.walk(to: request, plan: plan, response: $0) }
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
            return await onPool(response) { await aggregate.respond(to: request, route: route, subpath: subpath, plans: plans, response: $0) }
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

    /// Runs `answer` on the pool: `respond` runs on the socket loop's thread (`answersOnSocketLoop`), which must not
    /// walk, fetch or wait for the disk.
    private func onPool(_ response: consuming Response, _ answer: (consuming Response) async -> RequestRecord) async -> RequestRecord {
        await response.leaveSocketLoop()
        return await answer(response)
    }

    /// `/readyz`: 503 with the reason while starting or draining; 200, naming a disabled cache if there is one.
    private func readiness() -> (HTTPStatus, String) {
        if let reason = status.notReadyReason {
            return (.serviceUnavailable, "{\"status\":\"not_ready\",\"reason\":" + JSONText.string(reason) + "}\n")
        }
        if let cache = status.cacheDisabledReason {
            return (.ok, "{\"status\":\"ready\",\"cache\":" + JSONText.string("disabled: " + cache) + "}\n")
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

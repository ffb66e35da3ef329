import PageProxyCore

/// PageProxy's answer to every request: own endpoints, configured routes, and JSON errors for the rest.
struct PageProxyResponder: HTTPResponder {
    let router: Router
    let aggregate: AggregateResponder
    let status: ServiceStatus
    let metrics: Metrics

    func refused(status: HTTPStatus, bytes: Int) {
        metrics.requestStarted()
        metrics.requestFinished(route: "", status: status.code, bytes: bytes, duration: .zero)
    }

    func respond(to request: HTTPRequestHead, writer: ResponseWriter) async {
        let started = ContinuousClock.now
        metrics.requestStarted()
        defer {
            var route = ""
            if case .string(let name)? = writer.logFields["route"] { route = name }
            metrics.requestFinished(route: route, status: writer.deliveredStatus, bytes: writer.bytesSent, duration: .now - started)
        }
        guard request.method == .get || request.method == .head else {
            var (headers, body) = ErrorResponse.make(
                status: .methodNotAllowed, code: "method_not_allowed", message: "\(request.method.rawValue) is not supported; use GET or HEAD")
            headers.set("Allow", "GET, HEAD")
            try? await writer.send(.methodNotAllowed, headers: headers, body: body)
            return
        }
        switch router.destination(for: request.path) {
        case .health:
            await sendJSON(.ok, "{\"status\":\"ok\"}\n", writer: writer)
        case .ready:
            if let reason = status.notReadyReason {
                var text = "{\"status\":\"not_ready\",\"reason\":"
                JSONText.appendString(reason, to: &text)
                await sendJSON(.serviceUnavailable, text + "}\n", writer: writer)
            } else if let cache = status.cacheDisabledReason {
                var text = "{\"status\":\"ready\",\"cache\":"
                JSONText.appendString("disabled: " + cache, to: &text)
                await sendJSON(.ok, text + "}\n", writer: writer)
            } else {
                await sendJSON(.ok, "{\"status\":\"ready\"}\n", writer: writer)
            }
        case .metrics:
            var headers = HTTPHeaders()
            headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            headers.set("Cache-Control", "no-store")
            try? await writer.send(.ok, headers: headers, body: Array(metrics.exposition().utf8))
        case .aggregate(let route, let subpath):
            await aggregate.respond(to: request, route: route, subpath: subpath, writer: writer)
        case .invalidPath:
            let message = "the path after the route must percent-decode to UTF-8 with no . or .. segment (..;x included), "
                + "and no slash, backslash, NUL or control character inside a segment"
            await sendError(.badRequest, code: "invalid_path", message: message, writer: writer)
        case .notFound:
            let known = router.routeNames.joined(separator: ", ")
            await sendError(.notFound, code: "unknown_route", message: "no route matches \(request.path.prefix(200)); routes: \(known)", writer: writer)
        }
    }

    private func sendJSON(_ status: HTTPStatus, _ text: String, writer: ResponseWriter) async {
        var headers = HTTPHeaders()
        headers.set("Content-Type", "application/json; charset=utf-8")
        headers.set("Cache-Control", "no-store")
        try? await writer.send(status, headers: headers, body: Array(text.utf8))
    }

    private func sendError(_ status: HTTPStatus, code: String, message: String, writer: ResponseWriter) async {
        writer.logFields["error"] = .string(code)
        let (headers, body) = ErrorResponse.make(status: status, code: code, message: message)
        try? await writer.send(status, headers: headers, body: body)
    }
}

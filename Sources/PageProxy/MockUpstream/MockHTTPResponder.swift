import PageProxyCore

/// Serves the mock upstream over PageProxy's own HTTP server.
struct MockHTTPResponder: HTTPResponder {
    let mock: MockUpstream

    func respond(to request: HTTPRequestHead, writer: ResponseWriter) async {
        let mockRequest = MockRequest(
            method: request.method.rawValue, target: request.target,
            headers: request.headers.map { (name: $0.name, value: $0.value) })
        let response = await mock.respond(to: mockRequest)
        var headers = HTTPHeaders()
        for header in response.headers { headers.add(header.name, header.value) }
        writer.logFields["mock"] = .bool(true)
        if let cut = response.closesAfterBodyBytes {
            await writer.sendCut(HTTPStatus(code: response.status), headers: headers, body: response.body, after: cut)
        } else if mock.options.splitsHeadAndBody {
            // An empty first chunk sends the head alone; the body follows in a second write.
            var parts = [[], response.body].makeIterator()
            try? await writer.send(HTTPStatus(code: response.status), headers: headers, contentLength: response.body.count) { parts.next() }
        } else {
            try? await writer.send(HTTPStatus(code: response.status), headers: headers, body: response.body)
        }
    }
}

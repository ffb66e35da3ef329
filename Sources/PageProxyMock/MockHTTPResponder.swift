import PageProxyServer
import PageProxyCore

/// Serves the mock upstream over PageProxy's own HTTP server.
package struct MockHTTPResponder: HTTPResponder {
    package let mock: MockUpstream

    package init(mock: MockUpstream) {
        self.mock = mock
    }

    package func respond(to request: HTTPRequestHead, response writer: consuming Response) async -> RequestRecord {
        let mockRequest = MockRequest(
            method: request.method.rawValue, target: request.target,
            headers: request.headers.map { (name: $0.name, value: $0.value) })
        let response = await mock.respond(to: mockRequest)
        var headers = HTTPHeaders()
        for header in response.headers { headers.add(header.name, header.value) }
        var record = RequestRecord()
        record.isMock = true
        if response.closesConnection || mock.options.closesEveryConnection { writer.closeAfterAnswer() }
        if let cut = response.closesAfterBodyBytes {
            // The `reset` fault: the whole body's length is announced, only `cut` bytes follow, then the connection
            // closes (a chunk source that fails after the first chunk makes the writer close short of the length).
            var parts = [Array(response.body.prefix(cut))].makeIterator()
            try? await writer.send(HTTPStatus(code: response.status), headers: headers, contentLength: response.body.count) {
                guard let part = parts.next() else { throw MockCut() }
                return part
            }
        } else if mock.options.splitsHeadAndBody {
            // An empty first chunk sends the head alone; the body follows in a second write.
            var parts = [[], response.body].makeIterator()
            try? await writer.send(HTTPStatus(code: response.status), headers: headers, contentLength: response.body.count) { parts.next() }
        } else {
            await writer.send(HTTPStatus(code: response.status), headers: headers, body: response.body)
        }
        return record
    }

    /// Ends a `reset` answer short of its length.
    private struct MockCut: Error {}
}

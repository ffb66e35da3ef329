import PageProxyCore

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// An `UpstreamTransport` that hands each page request to a `MockUpstream` in this process: no socket at all.
struct InProcessMockTransport: UpstreamTransport {
    let mock: MockUpstream

    func send(_ request: UpstreamRequest, timeout: Duration, maxBodyBytes: Int) async throws(UpstreamError) -> UpstreamResponse {
        let url = request.url
        let host = [("Host", "\(url.host):\(url.port)")]
        let answer = await mock.respond(
            to: MockRequest(
                method: request.method.rawValue, target: url.requestTarget,
                headers: (host + request.headers.map { ($0.name, $0.value) }).map { (name: $0.0, value: $0.1) }))
        guard answer.closesAfterBodyBytes == nil else { throw .connectionLost(origin: url.origin.description, reason: "reset") }
        var headers = HTTPHeaders()
        for field in answer.headers { headers.add(field.name, field.value) }
        return UpstreamResponse(status: HTTPStatus(code: answer.status), headers: headers, body: answer.body)
    }
}

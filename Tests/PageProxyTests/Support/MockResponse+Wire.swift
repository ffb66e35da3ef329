import PageProxyCore

@testable import PageProxyMock
@testable import PageProxyServer

extension MockResponse {
    /// The response as a raw test server writes it: its head, with a `Content-Length` of its body, and the body.
    var wireBytes: [UInt8] {
        var fields = HTTPHeaders()
        for header in headers { fields.add(header.name, header.value) }
        fields.set("Content-Length", String(body.count))
        return HTTPResponseHead(status: HTTPStatus(code: status), headers: fields).serialized() + body
    }
}

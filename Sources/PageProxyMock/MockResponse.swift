/// One HTTP response produced by the mock upstream.
package struct MockResponse: Sendable {
    package var status: Int
    /// Response headers in the order they are written.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// When set, the connection is closed after this many body bytes (the `reset` fault).
    package var closesAfterBodyBytes: Int?
    /// The connection closes after this answer (`Connection: close`), as Werkzeug's server closes every one.
    package var closesConnection = false

    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (case-insensitive), if present.
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// A JSON response: `Content-Type` and `Content-Length` first, then `extraHeaders`.
    package static func json(
        status: Int,
        body: [UInt8],
        extraHeaders: [(name: String, value: String)] = []
    ) -> MockResponse {
        var headers: [(name: String, value: String)] = [
            (name: "Content-Type", value: "application/json; charset=utf-8"),
            (name: "Content-Length", value: String(body.count)),
        ]
        headers.append(contentsOf: extraHeaders)
        return MockResponse(status: status, headers: headers, body: body)
    }

    /// The same response with `body` replaced and `Content-Length` updated.
    package func replacingBody(_ newBody: [UInt8]) -> MockResponse {
        var copy = self
        copy.body = newBody
        copy.setHeader("Content-Length", String(newBody.count))
        return copy
    }

    /// Replaces the first header named `name` (case-insensitive) or appends it.
    package mutating func setHeader(_ name: String, _ value: String) {
        let wanted = name.lowercased()
        if let index = headers.firstIndex(where: { $0.name.lowercased() == wanted }) {
            headers[index].value = value
        } else {
            headers.append((name: name, value: value))
        }
    }
}

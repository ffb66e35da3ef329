/// One HTTP request as the mock upstream sees it.
package struct MockRequest: Sendable {
    /// The request method, e.g. "GET".
    package var method: String
    /// The request target in origin form, e.g. "/github/items?page=2&per_page=10".
    /// An absolute-form target ("http://host/path?query") is accepted too.
    package var target: String
    /// The request headers in arrival order; names compare case-insensitively.
    package var headers: [(name: String, value: String)]

    package init(method: String = "GET", target: String, headers: [(name: String, value: String)] = []) {
        self.method = method
        self.target = target
        self.headers = headers
    }

    /// The first value of the header `name` (case-insensitive), if present.
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

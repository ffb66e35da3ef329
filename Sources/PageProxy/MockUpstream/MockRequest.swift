/// One HTTP request as the mock upstream sees it.
struct MockRequest: Sendable {
    /// The request method, e.g. "GET".
    var method: String
    /// The request target in origin form, e.g. "/github/items?page=2&per_page=10".
    /// An absolute-form target ("http://host/path?query") is accepted too.
    var target: String
    /// The request headers in arrival order; names compare case-insensitively.
    var headers: [(name: String, value: String)]

    init(method: String = "GET", target: String, headers: [(name: String, value: String)] = []) {
        self.method = method
        self.target = target
        self.headers = headers
    }

    /// The first value of the header `name` (case-insensitive), if present.
    func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// Everything a wire format needs besides the window: the parsed request and the origin.
package struct MockContext: Sendable {
    package var query: MockQuery
    /// The request's Host header ("127.0.0.1:8080"); "localhost" when absent.
    package var host: String
    /// Default page size (already capped).
    package var defaultPageSize: Int
    package var maxPageSize: Int
    package var total: Int
    /// "https" when a TLS front says so (`X-Forwarded-Proto: https`), else "http": the scheme of absolute links.
    package var scheme = "http"
    /// The request's `Accept`, for services that answer by it (JupyterHub).
    package var accept: String? = nil

    /// "http://" (or "https://") + host.
    package var baseURL: String { scheme + "://" + host }

    /// "http://127.0.0.2" + the port of `host` (if it has one): another origin, same port.
    package var foreignBaseURL: String {
        "http://127.0.0.2" + (Self.port(of: host).map { ":" + $0 } ?? "")
    }

    /// The base URL a next link uses for `mode`.
    package func nextBase(_ mode: MockFaults.NextLink) -> String {
        mode == .foreign ? foreignBaseURL : baseURL
    }

    /// The port part of a Host header value ("h:8080" → "8080", "[::1]:80" → "80").
    package static func port(of host: String) -> String? {
        let afterBracket = host.lastIndex(of: "]").map { host[host.index(after: $0)...] } ?? host[...]
        guard let colon = afterBracket.lastIndex(of: ":") else { return nil }
        let port = afterBracket[afterBracket.index(after: colon)...]
        return port.isEmpty ? nil : String(port)
    }

    /// A page size from the service's own parameter: absent → default, invalid (non-numeric, < 1) → nil,
    /// above `maxPageSize` → capped. `mock_ignores=<name>` makes the service ignore it and serve its default, as an
    /// API that reads its size under another spelling does. `mock_limit_floor=N` reads it down to a multiple of N, at
    /// least N, as an API that takes only a few sizes does (review26 L1: `limit=8` served as 10, `limit=93` as 90).
    package func pageSize(_ name: String) -> Int? {
        guard let text = query.value(name), query.value("mock_ignores") != name else { return defaultPageSize }
        guard let size = Int(text), size >= 1 else { return nil }
        guard let floor = query.value("mock_limit_floor").flatMap(Int.init), floor >= 1 else { return min(size, maxPageSize) }
        return min(max(floor, size / floor * floor), maxPageSize)
    }

    /// A 1-based page number: absent → 1, invalid (non-numeric, < 1) → nil.
    package func pageNumber(_ name: String) -> Int? {
        guard let text = query.value(name) else { return 1 }
        guard let page = Int(text), page >= 1 else { return nil }
        return page
    }

    /// A 0-based offset: absent → 0, invalid (non-numeric, < 0) → nil. `mock_ignores=<name>` makes the service ignore
    /// it and serve from 0, as an API that reads its position only elsewhere does (Flask-AppBuilder's `q`; real14).
    package func offset(_ name: String) -> Int? {
        guard let text = query.value(name), query.value("mock_ignores") != name else { return 0 }
        guard let offset = Int(text), offset >= 0 else { return nil }
        return min(offset, Int.max / 2)  // far past any dataset; keeps offset + size from overflowing
    }
}

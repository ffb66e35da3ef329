/// A parsed request line and header section.
package struct HTTPRequestHead: Sendable {
    package var method: HTTPMethod
    /// The request target exactly as received.
    package var target: String
    package var version: HTTPVersion
    package var headers: HTTPHeaders
    /// Names of the fields whose values were not UTF-8 as received (their `headers` values hold U+FFFD instead).
    package var fieldsNotUTF8: [String] = []
    /// The request announced a body that was not read (`Expect: 100-continue`): the connection must close after
    /// the answer, since the body's bytes may still arrive.
    package var hasUnreadBody = false

    package init(method: HTTPMethod, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders()) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// The percent-encoded path: for origin-form the part before "?", for absolute-form the path ("/" if empty).
    package var path: String {
        let (path, _) = splitTarget()
        return path.isEmpty ? "/" : String(path)
    }

    /// The raw query after the first "?", nil when there is none.
    package var query: String? {
        splitTarget().query.map(String.init)
    }

    /// RFC 9112 §9.3 — HTTP/1.1 persists unless `Connection: close`; HTTP/1.0 only with `Connection: keep-alive`.
    package var isKeepAlive: Bool {
        headers.isKeepAlive(version: version)
    }

    /// The path and query of the target; RFC 9112 §3.2.2 absolute-form drops "scheme://authority".
    private func splitTarget() -> (path: Substring, query: Substring?) {
        var rest = Substring(target)
        if !rest.hasPrefix("/"), let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            let afterAuthority = rest[colon...].dropFirst(3)
            rest = afterAuthority[(afterAuthority.firstIndex { $0 == "/" || $0 == "?" } ?? afterAuthority.endIndex)...]
        }
        guard let questionMark = rest.firstIndex(of: "?") else { return (rest, nil) }
        return (rest[..<questionMark], rest[rest.index(after: questionMark)...])
    }
}

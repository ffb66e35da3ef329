/// A parsed request line and header section.
package struct HTTPRequestHead: Sendable {
    package var method: HTTPMethod
    /// The request target exactly as received.
    package var target: String
    package var version: HTTPVersion
    package var headers: HTTPHeaders
    /// Names of the header fields whose value bytes were not valid UTF-8: `headers` holds them with U+FFFD in place
    /// of the invalid bytes, so they must never be forwarded as if they were what the client sent.
    package var fieldsNotUTF8: [String] = []
    /// True when the request announced content that was not read (`Expect: 100-continue` answered at once): the
    /// connection cannot carry another request and closes after the answer.
    package var contentLeftUnread = false

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
    /// Never after content left unread: its bytes may still arrive.
    package var isKeepAlive: Bool {
        !contentLeftUnread && headers.isKeepAlive(version: version)
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

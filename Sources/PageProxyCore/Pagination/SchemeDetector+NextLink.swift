/// `scheme: "auto"`'s search of the body for the way to the next page: a next link, else a cursor.
extension SchemeDetector {
    /// The first next link among the body's candidates; else the first cursor; else the first such path present
    /// with null or "" (a last page). A link wins over a cursor wherever they stand: Datasette writes both its
    /// opaque `"next": "100"` (sent back as `?_next=`, a name no rule could guess) and `"next_url"`.
    static func nextLinkOrCursor(
        _ values: [JSONPath: JSONValue]
    ) -> (path: JSONPath, value: String?, isURL: Bool, parameter: String)? {
        var cursor: (path: JSONPath, value: String?, isURL: Bool, parameter: String)?
        for candidate in nextPaths {
            guard case .string(let text) = values[candidate.path], !text.isEmpty else { continue }
            if isLink(text, at: candidate.path) { return (candidate.path, text, true, candidate.cursorParameter) }
            cursor = cursor ?? (candidate.path, text, false, candidate.cursorParameter)
        }
        if let cursor { return cursor }
        for candidate in nextPaths {
            switch values[candidate.path] {
            case .null?, .string?: return (candidate.path, nil, candidate.isURLPath, candidate.cursorParameter)
            default: continue
            }
        }
        return nil
    }

    /// A next link rather than an opaque cursor: what `looksLikeURL`, or any value of a HAL-style `href` (a URI
    /// reference by definition: Eve's `"_links": {"next": {"href": "people?page=2"}}`) or of a next object's `url`.
    static func isLink(_ text: String, at path: JSONPath) -> Bool {
        looksLikeURL(text) || path.components.last == .key("href") || nextLinkObjectPaths.contains { $0.path == path }
    }

    /// An absolute http(s) URL, a path, a query, or a relative reference with a query (Eve's `people?page=2`,
    /// resolved against the page's URL by RFC 3986): a next link, not an opaque cursor. Base64 and base64url
    /// cursors never hold a `?`.
    static func looksLikeURL(_ text: String) -> Bool {
        let lower = text.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") || text.hasPrefix("/") || text.hasPrefix("?") { return true }
        guard let query = text.firstIndex(of: "?"), query > text.startIndex else { return false }
        return !text.contains(where: \.isWhitespace) && text[text.index(after: query)...].contains("=")
    }
}

/// Pagination stated as JSON in one response header: flask-smorest's `X-Pagination: {"total": 1000,
/// "total_pages": 10, "page": 2, "next_page": 3, …}` and ASP.NET Core's `X-Pagination: {"TotalCount": 1000,
/// "TotalPages": 10, "CurrentPage": 2, "HasNext": true, …}`. A route names the header (`totalPagesHeader`, …) and,
/// with the matching `…HeaderPath`, the path into its JSON; without a path the whole value is the number.
extension HTTPHeaders {
    /// A count from header `name` (a total of items or pages): its whole value, or with `path` the value at that path
    /// of the JSON object the header holds (a number or a numeric string); `Int.max` for one past `Int`'s range
    /// (`statedCount`: the walk then refuses it at the first page). Nil when absent, not JSON, or not such a number.
    package func statedCount(_ name: String?, at path: JSONPath?) -> Int? {
        guard let path else { return statedCount(name) }
        return jsonValue(name, at: path)?.statedCount
    }

    /// The value at `path` of the JSON that header `name` holds; nil when the header is absent or not JSON.
    package func jsonValue(_ name: String?, at path: JSONPath) -> JSONValue? {
        guard let name, let text = self[name] else { return nil }
        return try? JSONScanner().values(in: Array(text.utf8), at: [path])[path]
    }
}

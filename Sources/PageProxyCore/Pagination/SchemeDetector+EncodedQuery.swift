/// `scheme: "auto"` and `probe` where the way on lives inside a structured query parameter, which only a route's
/// `"queryEncoding"` walks (real15): a GraphQL Relay connection over GET (`edges`, `pageInfo.hasNextPage`,
/// `pageInfo.endCursor`; the cursor goes back as the variable `after` in the JSON of `variables`), and a page number
/// inside a Rison or JSON `q` (Flask-AppBuilder's `?q=(page:0,page_size:100)`). Before real16 both were a refusal that
/// named no way out (`cannot tell`, keys seen: "data"), and a Relay page with a configured `items` was answered as
/// the whole list. Now the refusal names the route's pagination to write; a Relay connection that says no page
/// follows is the whole answer.
extension SchemeDetector {
    /// A Relay connection found on a page: where it is, and what its `pageInfo` says.
    struct RelayConnection {
        /// The connection object (`data.things`).
        let path: JSONPath
        let edgeCount: Int
        /// `pageInfo.hasNextPage`; nil when absent or no flag.
        let hasNextPage: Bool?
    }

    /// How deep below `data` a connection is looked for (`data.viewer.repositories` is 2).
    private static let relayDepth = 3

    /// The first object under the page's `data` (breadth first, `relayDepth` levels) that holds an `edges` array and a
    /// `pageInfo` object; nil when there is none.
    static func relayConnection(in body: [UInt8]) -> RelayConnection? {
        var level: [(path: JSONPath, bytes: [UInt8])] = []
        if let members = JSONMembers.of(body), let data = members.first(where: { $0.key == "data" && $0.kind == .object }) {
            level = [(path("data"), Array(body[data.range]))]
        }
        for _ in 0..<relayDepth {
            var next: [(path: JSONPath, bytes: [UInt8])] = []
            for (parent, bytes) in level {
                for member in JSONMembers.of(bytes) ?? [] where member.kind == .object {
                    let object = Array(bytes[member.range])
                    let at = JSONPath(components: parent.components + [.key(member.key)])
                    if let found = relay(in: object, at: at) { return found }
                    next.append((at, object))
                }
            }
            level = next
        }
        return nil
    }

    private static func relay(in object: [UInt8], at path: JSONPath) -> RelayConnection? {
        let (edges, flag) = (key("edges"), JSONPath(components: [.key("pageInfo"), .key("hasNextPage")]))
        guard let values = try? JSONScanner().values(in: object, at: [edges, key("pageInfo"), flag]),
            case .array(_, let count)? = values[edges], case .object? = values[key("pageInfo")]
        else { return nil }
        return RelayConnection(path: path, edgeCount: count, hasNextPage: values[flag]?.flag)
    }

    /// Why auto cannot walk `connection` itself, with the route's pagination that walks it.
    static func relayRefusal(_ connection: RelayConnection, url: PageURL) -> String {
        let prefix = connection.path.description
        var fields = "\"scheme\": \"cursor\", \"queryEncoding\": \"json\", \"cursorPath\": \"\(prefix).pageInfo.endCursor\", "
            + "\"cursorParameter\": \"variables.after\", \"sizeParameter\": \"variables.first\""
        if let first = url.queryValue("variables").flatMap({ try? QueryJSONDecoder.decode($0) })?.member("first"),
            case .number(let size) = first
        {
            fields += ", \"pageSize\": \(size)"
        }
        let state = connection.hasNextPage == true ? "says more pages follow (\"hasNextPage\": true)" : "does not say whether more pages follow"
        return "the first page is a GraphQL Relay connection at \"\(prefix)\" that \(state); its cursor goes back as the GraphQL "
            + "variable \"after\" inside the JSON of \"variables\", which auto does not write: name the route's pagination "
            + "{\(fields)} and its \"items\": \"\(prefix).edges\" (the query must read $after and $first)"
    }

    /// The parameter and encoding of a `q`-like query parameter whose Rison or JSON object holds a page number or an
    /// offset (`q=(page:0,page_size:100)`), with the route's pagination that walks it; nil when no parameter does.
    static func encodedNumberingHint(_ url: PageURL, totalPath: String?) -> String? {
        for (name, raw) in url.queryPairs {
            guard let text = PageURL.decodeQueryComponent(String(raw.map { $0 == "+" ? " " : $0 })),
                let (encoding, value) = structuredValue(text)
            else { continue }
            let parameter = PageURL.decodeQueryComponent(name) ?? name
            let members = [pageParameters, offsetParameters].lazy.compactMap { names in names.first { value.member($0) != nil } }
            guard let numbered = members.first else { continue }
            let isOffset = offsetParameters.contains(numbered)
            let size = (isOffset ? limitParameters + ["page_size"] : sizeParameters).first { value.member($0) != nil }
            var fields = "\"scheme\": \"\(isOffset ? "offset" : "page-number")\", \"queryEncoding\": \"\(encoding)\", "
                + "\"\(isOffset ? "offsetParameter" : "pageParameter")\": \"\(parameter).\(numbered)\""
            if let size { fields += ", \"\(isOffset ? "limitParameter" : "sizeParameter")\": \"\(parameter).\(size)\"" }
            if !isOffset, value.member(numbered) == .number("0") { fields += ", \"firstPage\": 0" }
            if let totalPath { fields += ", \"totalItemsPath\": \"\(totalPath)\"" }
            return "its URL numbers pages inside the \(encoding == "json" ? "JSON" : "Rison") object of \"\(parameter)\" "
                + "(\"\(numbered)\"), which auto does not write: name the route's pagination {\(fields)}"
        }
        return nil
    }

    /// A query value that is a Rison `(…)` or JSON `{…}` object, decoded, with the `queryEncoding` that reads it.
    private static func structuredValue(_ text: String) -> (String, QueryValue)? {
        if text.hasPrefix("("), let value = try? RisonDecoder.decode(text), case .object = value { return ("rison", value) }
        if text.hasPrefix("{"), let value = try? QueryJSONDecoder.decode(text), case .object = value { return ("json", value) }
        return nil
    }
}

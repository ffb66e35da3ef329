/// One link-value of a `Link` header field (RFC 8288 §3).
package struct LinkHeaderValue: Sendable, Equatable {
    /// The URI-Reference between "<" and ">", as written (it may be relative).
    package var target: String
    /// The space-separated relation types of `rel`, lowercased (RFC 8288 §3.3).
    package var relations: [String]
    /// Every parameter by lowercased name with its unquoted value ("" when it has none); the first occurrence wins.
    package var parameters: [String: String]

    package init(target: String, relations: [String] = [], parameters: [String: String] = [:]) {
        self.target = target
        self.relations = relations
        self.parameters = parameters
    }
}

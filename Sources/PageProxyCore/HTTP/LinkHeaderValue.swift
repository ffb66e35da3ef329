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

    /// RFC 8288 §3.2: whether this link is about the page asked at `url` (answered at `answered`, after a redirect):
    /// it has no `anchor`, an empty one, or one that resolves to that page. `<X>; rel="next"; anchor="/other"` says X
    /// is the next of /other, not of this page (attack22 item 1: it was followed, and another list's items merged).
    package func isAbout(_ url: PageURL, answeredAt answered: PageURL? = nil) -> Bool {
        guard let anchor = parameters["anchor"], !anchor.isEmpty else { return true }
        let base = answered ?? url
        guard let context = base.resolving(anchor) else { return false }
        return context.isSamePage(as: base) || context.isSamePage(as: url)
    }
}

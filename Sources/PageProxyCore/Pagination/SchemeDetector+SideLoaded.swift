/// `scheme: "auto"` on pages that side-load related objects in root arrays beside the items (Zendesk's
/// `{"activities": […], "actors": […], "users": […]}`; real19 F2: `users` was answered instead of the activities).
extension SchemeDetector {
    /// Listed items keys that name a kind of thing rather than "the items": APIs side-load such arrays beside their
    /// own list, so one is taken only when it is the page's one root array of objects.
    static let sideLoadableItemsPaths: Set<JSONPath> = [path("users")]

    /// The root key the URL's last path segment names, its extension dropped (`/api/v2/activities.json` →
    /// `activities`, GitHub's `/artifacts`); nil for a segment that is no plain name.
    static func urlNamedItemsPath(_ url: PageURL) -> JSONPath? {
        guard let segment = url.path.split(separator: "/").last else { return nil }
        let name = segment.split(separator: ".", maxSplits: 1).first.map(String.init) ?? ""
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }), name.contains(where: \.isLetter)
        else { return nil }
        return key(name)
    }

    /// The items when the URL names a root array of objects (or an empty one): the list the URL asks for, whatever
    /// else the page side-loads beside it.
    static func urlNamedItems(_ values: [JSONPath: JSONValue], body: [UInt8], url: PageURL) -> (JSONPath, Int)? {
        guard let named = urlNamedItemsPath(url), case .array(let range, let count)? = values[named] else { return nil }
        if count == 0 { return (named, 0) }
        guard case .object? = try? JSONScanner().value(in: body, range: range, at: JSONPath(components: [.index(0)])) else { return nil }
        return (named, count)
    }

    /// Refuses a side-loadable key found as the items when other root arrays of objects stand beside it: any of them
    /// may be the list, and a wrong pick answers the wrong objects with a 200.
    static func refuseSideLoaded(_ found: JSONPath, body: [UInt8], url: PageURL) throws(PaginationError) {
        guard sideLoadableItemsPaths.contains(found) else { return }
        let arrays = arraysOfObjects(JSONMembers.of(body) ?? [], in: body)
        guard arrays.count > 1 else { return }
        throw .notDetected(
            url: url,
            reason: "the first page holds several arrays of objects (" + arrays.map { "\"\($0)\"" }.joined(separator: ", ")
                + "): any may be the items, the others side-loaded; set the route's \"items\" to the key that holds them")
    }
}

/// Protobuf's JSON mapping leaves an empty repeated field out: MLflow answers a search that matches nothing with `{}`,
/// and Google-style APIs may send a page of no items as `{"nextPageToken": "…"}` (AIP-158). So a page whose items path
/// is missing is a page of no items when it is an object that holds nothing, or nothing but scalars the walk itself
/// reads at the top level (the next token, a total). Anything else still fails with `itemsNotFound`: Slack's
/// `{"ok": false, "error": "invalid_auth"}` with a 200 is an error, not an empty page, and an array or object beside
/// the missing path says the route's items path may be wrong; an empty answer would hide either.
enum OmittedItems {
    /// Whether `body` (already validated as JSON) is such an object, for a walk that reads `valuePaths`.
    static func leftOut(in body: [UInt8], valuePaths: [JSONPath]) -> Bool {
        // Listed by skipping, never decoded: a page whose key was renamed costs no more than one that holds it
        // (attack14 H1: Foundation's decode of a 4 MB page took 1.4 GB on every request of such a route).
        guard let members = JSONMembers.of(body) else { return false }
        let readKeys = Set(valuePaths.compactMap { path -> String? in
            guard path.components.count == 1, case .key(let key) = path.components[0] else { return nil }
            return key
        })
        return members.allSatisfy { readKeys.contains($0.key) && $0.kind == .scalar }
    }
}

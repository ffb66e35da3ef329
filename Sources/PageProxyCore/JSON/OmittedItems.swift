/// Protobuf's JSON mapping leaves an empty repeated field out: MLflow answers a search that matches nothing with `{}`,
/// and Google-style APIs may send a page of no items as `{"nextPageToken": "…"}` (AIP-158). Mailman 3 leaves its
/// `entries` out of an empty list's page and of a page past the end (`{"http_etag", "start", "total_size"}`). So a
/// page whose items path is missing is a page of no items when it is an object of scalars only, and either holds
/// nothing but scalars the walk itself reads at the top level (the next token, a total), or states that nothing is
/// here: a total of 0, or a `start` (`offset`) at or past its total. Anything else still fails with `itemsNotFound`:
/// Slack's `{"ok": false, "error": "invalid_auth"}` with a 200 is an error, not an empty page, and an array or object
/// beside the missing path says the route's items path may be wrong; an empty answer would hide either.
enum OmittedItems {
    /// Whether `body` (already validated as JSON) is such an object, for a walk that reads `valuePaths`.
    static func leftOut(in body: [UInt8], valuePaths: [JSONPath]) -> Bool {
        // Listed by skipping, never decoded: a page whose key was renamed costs no more than one that holds it
        // (attack14 H1: Foundation's decode of a 4 MB page took 1.4 GB on every request of such a route).
        guard let members = scalarMembers(body) else { return false }
        let readKeys = topLevelKeys(valuePaths)
        return members.allSatisfy(readKeys.contains) || statesNoItems(body, members: members, totals: readKeys.union(knownTotals))
    }

    /// Whether `body` is an object of scalars only that states a total of 0 at one of the names where APIs state
    /// their totals, or a `start` at or past it (`SchemeDetector`: a first page with nothing to detect).
    static func statesNoItems(in body: [UInt8]) -> Bool {
        scalarMembers(body).map { statesNoItems(body, members: $0, totals: knownTotals) } ?? false
    }

    private static func statesNoItems(_ body: [UInt8], members: Set<String>, totals: Set<String>) -> Bool {
        let path = { (name: String) in JSONPath(components: [.key(name)]) }
        let named = members.filter { totals.contains($0) }
        let starts = members.filter { $0 == "start" || $0 == "offset" }
        let failures = members.filter { errorNames.contains($0) || outcomeNames.contains($0) }
        guard !named.isEmpty, let values = try? JSONScanner().values(in: body, at: (Array(named) + Array(starts) + Array(failures)).map(path))
        else { return false }
        // review18 R7: an error with a 200 may state a count of 0 beside it (`{"error": "rate limited", "count": 0}`):
        // it says why nothing is here, which an empty list would hide.
        let saysFailed = failures.contains { name in
            guard errorNames.contains(name) else { return values[path(name)] == .bool(false) }
            switch values[path(name)] {
            case nil, .null?, .bool(false)?, .string("")?, .number("0")?: return false
            default: return true
            }
        }
        if saysFailed { return false }
        // A JSON number, not a numeric string or a boolean: what the page states of itself.
        let number = { (name: String) -> Int? in
            guard case .number? = values[path(name)] else { return nil }
            return values[path(name)]?.integer
        }
        guard let total = named.compactMap(number).min() else { return false }
        return total == 0 || starts.contains { number($0).map { $0 >= total } ?? false }
    }

    /// Members that name an error when they hold anything but null, false or "", and members that say the request
    /// failed when false (Slack's `ok`).
    private static let errorNames: Set<String> = ["error", "error_message", "errorMessage", "error_code", "errorCode", "fault"]
    private static let outcomeNames: Set<String> = ["ok", "success"]

    /// The top-level names of the totals auto detection reads (`total_size`, `count`, …).
    private static let knownTotals = topLevelKeys(SchemeDetector.totalPaths)

    private static func topLevelKeys(_ paths: [JSONPath]) -> Set<String> {
        Set(paths.compactMap { path -> String? in
            guard path.components.count == 1, case .key(let key) = path.components[0] else { return nil }
            return key
        })
    }

    /// The names of `body`'s members when it is an object none of whose members is an array or an object.
    private static func scalarMembers(_ body: [UInt8]) -> Set<String>? {
        guard let members = JSONMembers.of(body), members.allSatisfy({ $0.kind == .scalar }) else { return nil }
        return Set(members.map(\.key))
    }
}

/// `scheme: "auto"` on a page whose items sit under a key it does not list (GitHub's `{"total_count": …,
/// "artifacts": […]}`): the members are listed by `JSONMembers`, never decoded (attack14 H1).
extension SchemeDetector {
    /// The only top-level member that is a non-empty array whose first element is an object, with its item count
    /// (the listed keys test their first element so too); nil when there is none, or more than one.
    static func onlyArrayOfObjects(_ members: [JSONMembers.Member], in body: [UInt8]) -> (JSONPath, Int)? {
        let arrays = arraysOfObjects(members, in: body)
        guard arrays.count == 1, let key = arrays.first, !key.contains("."), !key.isEmpty,
            case .array(_, let count)? = try? JSONScanner().value(in: body, range: 0..<body.count, at: path(key))
        else { return nil }
        return (path(key), count)
    }

    /// The keys of the top-level members that are non-empty arrays whose first element is an object, in page order.
    static func arraysOfObjects(_ members: [JSONMembers.Member], in body: [UInt8]) -> [String] {
        members.filter { $0.kind == .array && firstElementIsObject($0.range, in: body) }.map(\.key)
    }

    /// The top-level members that are non-empty arrays of anything but objects (ids, tags, rows as arrays) beside
    /// `items`: an unlisted key holding the list's ids next to an array of link or facet objects (attack14 M7,
    /// `{"ids": [10, 11], "links": [{"rel": "next", …}]}`) is no page whose items auto can tell, so it is refused
    /// rather than answered with the objects.
    static func otherArraysOfValues(_ members: [JSONMembers.Member], besides items: JSONPath, in body: [UInt8]) -> [String] {
        members.filter { member in
            member.kind == .array && path(member.key) != items && !firstElementIsObject(member.range, in: body)
                && firstElement(member.range, in: body) != UInt8(ascii: "]")
        }.map(\.key)
    }

    /// Whether the array at `range` (validated) opens with an object: its first byte past `[` and whitespace.
    private static func firstElementIsObject(_ range: Range<Int>, in body: [UInt8]) -> Bool {
        firstElement(range, in: body) == UInt8(ascii: "{")
    }

    /// The first byte past the array's `[` and whitespace (`]` for an empty array).
    private static func firstElement(_ range: Range<Int>, in body: [UInt8]) -> UInt8? {
        body[range].dropFirst().first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
    }

    /// The one member that is an array, empty, beside nothing but scalars (GitHub's `{"total_count": 0, "artifacts":
    /// []}`): a list of no items, as `{}` is (attack14 L2: a 502 where the same endpoint with items was a 200).
    static func onlyEmptyArray(_ members: [JSONMembers.Member], in body: [UInt8]) -> (JSONPath, Int)? {
        guard members.allSatisfy({ $0.kind != .object }), let only = members.first(where: { $0.kind == .array }),
            members.filter({ $0.kind == .array }).count == 1, !only.key.contains("."), !only.key.isEmpty,
            case .array(_, 0)? = try? JSONScanner().value(in: body, range: 0..<body.count, at: path(only.key))
        else { return nil }
        return (path(only.key), 0)
    }

    /// A `Link` of `first` or `prev` alone, on a page where nothing else was found: walked by it, as before attack14 L1.
    static func linkHeaderLast(_ links: [LinkHeaderValue], into detected: inout DetectedPagination) {
        guard detected.scheme == nil, links.contains(where: { $0.relations.contains("first") || $0.relations.contains("prev") }) else { return }
        detected.scheme = .linkHeader(PaginationScheme.LinkHeader())
        detected.evidence = "Link header"
    }
}

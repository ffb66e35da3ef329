/// `scheme: "auto"` for a first page that says more pages follow in a way no scheme can walk: an error naming what
/// it said, never that page answered as the whole list (attack7). A total or page count past the page is checked
/// in `detect` itself; these are the other signals.
extension SchemeDetector {
    /// Why the page signals more pages with no way on that auto-detection can follow; nil when it signals none.
    /// Asked only when no scheme was found.
    static func moreSignalled(
        _ headers: HTTPHeaders, values: [JSONPath: JSONValue], header: PaginationHeader?, body: [UInt8]
    ) -> String? {
        if let value = values[hasMorePath], value != .null, value.flag == nil {
            return "the first page's \"has_more\" holds \(value.shortDescription), which is neither true nor false"
        }
        for candidate in nextPaths {
            guard let value = values[candidate.path], signalsMore(value, isURLPath: candidate.isURLPath) else { continue }
            return "the first page's \"\(candidate.path)\" holds \(value.shortDescription), which names a next page in no way "
                + "auto-detection follows (a link, a link at \"href\" or \"url\" in an object, or a string cursor)"
        }
        if let (member, index) = nextRelationInLinksArray(body) {
            return "the first page's \"\(member)\" is an array of links with a \"next\" relation at \(index), which auto-detection "
                + "does not follow (the relation may move on later pages); if the upstream always lists it there, name the "
                + "route's scheme: {\"scheme\": \"next-url\", \"nextPath\": \"\(member).\(index).href\"}"
        }
        if header == nil, let name = paginationHeaders.first(where: { headers[$0] != nil }) {
            // A header that says this is the last page needs no other key (review12: ASP.NET's `"HasNext": false`).
            if let text = headers[name], headerSaysLastPage(text) { return nil }
            return "the first page has a \(name) header that is not a JSON object stating a page count, a total or a "
                + "next page, so whether more pages follow cannot be told"
        }
        return nil
    }

    /// A top-level links array, OpenStack's (`"servers_links": [{"rel": "next", "href": "…"}]`, `links`): its member
    /// and the index of the link whose `rel` is `next` among its first few; nil when there is none.
    private static func nextRelationInLinksArray(_ body: [UInt8]) -> (String, Int)? {
        for member in JSONMembers.of(body) ?? [] where member.kind == .array && (member.key == "links" || member.key.hasSuffix("_links")) {
            let slice = Array(body[member.range])
            let relations = (0..<8).map { JSONPath(components: [.index($0), .key("rel")]) }
            guard let values = try? JSONScanner().values(in: slice, at: relations) else { continue }
            if let index = relations.firstIndex(where: { values[$0] == .string("next") }) { return (member.key, index) }
        }
        return nil
    }

    /// A first page whose next link or cursor is null or "" (the last page) while a flag says more pages follow
    /// (`{"hasMore": true, "next": null}`): the page contradicts itself, and answering it as the whole list would drop
    /// the rest with a 200. Nil when no such flag says more, or the page names its next page.
    static func moreDespiteNoWayOn(_ values: [JSONPath: JSONValue], detected: DetectedPagination) -> String? {
        guard detected.next == nil else { return nil }
        let wayOn: JSONPath
        switch detected.scheme {
        case .nextURLInBody(let options)?: wayOn = options.nextPath
        case .cursorInBody(let options)?: wayOn = options.cursorPath
        default: return nil
        }
        let says = ([hasMorePath] + moreFlagPaths).first { values[$0]?.flag == true }.map { "\"\($0)\" is true" }
            ?? lastPageFlagPaths.first { values[$0] == .bool(false) }.map { "\"\($0)\" is false" }
        guard let says else { return nil }
        return "the first page's \"\(wayOn)\" names no next page (the last page), but its \(says) (more pages follow)"
    }

    /// `"next": {"href": "a", "url": "b"}` where the walk would follow one of them: two different links, neither of
    /// which can be taken for the next page. (A page that also has a `Link` header, say, is walked by that.)
    static func refuseAmbiguousNextLink(
        _ values: [JSONPath: JSONValue], following nextPath: JSONPath, url: PageURL
    ) throws(PaginationError) {
        let links = nextLinkObjectPaths.map(\.path)
        for index in stride(from: 0, to: links.count - 1, by: 2) where [links[index], links[index + 1]].contains(nextPath) {
            // The same link written relative and absolute is one link (review12).
            guard let href = values[links[index]]?.nonEmptyString, let other = values[links[index + 1]]?.nonEmptyString,
                href != other, url.resolving(href)?.description != url.resolving(other)?.description
            else { continue }
            throw .notDetected(
                url: url,
                reason: "the first page names two next links, \"\(links[index])\" and \"\(links[index + 1])\"; "
                    + "name the route's scheme and its nextPath in its pagination")
        }
    }

    /// A value at a next path that says a next page exists but is not a link or cursor the walk can send back: an
    /// object at a next-link path (its link was at neither `href` nor `url`), `true`, or a number other than 0
    /// (Twitter's `"next_cursor": 0` is its last page).
    private static func signalsMore(_ value: JSONValue, isURLPath: Bool) -> Bool {
        switch value {
        case .object: isURLPath
        case .bool(let flag): flag
        case .number(let text): Double(text) != 0
        case .array(_, let count): count > 0
        case .string, .null: false
        }
    }
}

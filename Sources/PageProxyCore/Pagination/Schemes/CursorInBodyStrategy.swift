/// An opaque cursor in the body sent back as a parameter (Slack's `response_metadata.next_cursor`, Twitter's numeric
/// `next_cursor`).
struct CursorInBodyStrategy: PaginationStrategy {
    let options: PaginationScheme.CursorInBody

    var valuePaths: [JSONPath] {
        if let objectPath = options.cursorObjectPath { return [objectPath] + [options.morePath].compactMap { $0 } }
        return [options.cursorPath] + [Self.relayHasNextPage(beside: options.cursorPath), options.morePath].compactMap { $0 }
    }

    var followsUpstream: Bool { true }

    func firstPage(from base: PageURL) -> PageURL {
        base.defaultingQueryValue(options.pageSize.map(String.init), for: options.sizeParameter)
    }

    func next(after page: Page) throws(PaginationError) -> NextPages {
        if options.cursorObjectPath != nil { return try nextFromObject(after: page, onto: page.url) }
        // A Relay connection's last page still names its `endCursor`; its `hasNextPage: false` is the end (real16:
        // graphene-django and Strawberry cost one request more, for a page of no edges).
        let hasNextPage = Self.relayHasNextPage(beside: options.cursorPath).flatMap { page.values[$0]?.flag }
        if hasNextPage == false || PageSaysNoMore.at(options.morePath, of: page) { return .none }
        // Where the page says more follow, `"0"` or 0 is a cursor like any other (an offset or an id made opaque;
        // attack16 L3: it ended the walk after page 1 with a 200), not Twitter's end.
        if hasNextPage == true, let zero = Self.zeroCursor(at: options.cursorPath, of: page) {
            return .one(page.url.settingQueryValue(zero, for: options.cursorParameter))
        }
        guard let cursor = try Self.cursor(at: options.cursorPath, of: page) else {
            // A page that says more follow and names no cursor has no way on: not the end (retest16 N3: a 200 with the
            // first pages only).
            if hasNextPage == true {
                throw .cannotContinue(page: page.number, reason: "its pageInfo says hasNextPage true but its cursor at \"\(options.cursorPath)\" is empty")
            }
            return .none
        }
        return .one(page.url.settingQueryValue(cursor, for: options.cursorParameter))
    }

    /// A cursor object's members go onto the walk's first page's URL, not onto the page before's, which holds the
    /// members that page was asked with (`cursorObjectPath`).
    func next(after page: Page, walkStartedAt first: PageURL) throws(PaginationError) -> NextPages? {
        guard options.cursorObjectPath != nil else { return nil }
        return try nextFromObject(after: page, onto: first)
    }

    /// The page after `page`: `base` with every member of the page's cursor object set as a query parameter; none when
    /// the object is absent, null, `false` or `{}`, or the page's `morePath` says no more follow.
    private func nextFromObject(after page: Page, onto base: PageURL) throws(PaginationError) -> NextPages {
        guard let objectPath = options.cursorObjectPath, !PageSaysNoMore.at(options.morePath, of: page) else { return .none }
        let range: Range<Int>
        switch page.values[objectPath] {
        case nil, .null, .bool(false): return .none
        case .object(let found): range = found
        case let other?:
            throw .cannotContinue(page: page.number, reason: "its cursor object at \"\(objectPath)\" is \(other.shortDescription), not an object or null")
        }
        // A body the cache left in its file is read for the object's members (a few bytes, once a page).
        guard let read = page.withBodyRead(), range.upperBound <= read.body.count else {
            throw .cannotContinue(page: page.number, reason: "its cached copy changed on disk after it was checked; retry")
        }
        let object = Array(read.body[range])
        switch Self.members(of: object) {
        case .failure(let problem):
            throw .cannotContinue(page: page.number, reason: "its cursor object at \"\(objectPath)\" \(problem.reason)")
        case .success(let members):
            if members.isEmpty { return .none }
            return .one(members.reduce(base) { url, member in url.settingQueryValue(member.value, for: member.name) })
        }
    }

    /// Why a cursor object cannot be sent back.
    struct UnsendableObject: Error {
        let reason: String
    }

    /// Each member of the cursor object `object` (its bytes) as a query parameter, in the order written: a string as
    /// it is, a number as written. Any other member is no value to send back.
    static func members(of object: [UInt8]) -> Result<[(name: String, value: String)], UnsendableObject> {
        guard let members = JSONMembers.of(object) else { return .failure(UnsendableObject(reason: "could not be read")) }
        let paths = members.map { JSONPath(components: [.key($0.key)]) }
        let values = (try? JSONScanner().values(in: object, at: paths)) ?? [:]
        var sent: [(name: String, value: String)] = []
        for (member, path) in zip(members, paths) {
            switch values[path] {
            case .string(let text)?, .number(let text)?: sent.append((member.key, text))
            case let other:
                let what = other?.shortDescription ?? "unreadable"
                return .failure(UnsendableObject(reason: "holds \"\(member.key)\": \(what), not a string or a number to send back"))
            }
        }
        return .success(sent)
    }

    /// The cursor at `path`, as `NextURLInBodyStrategy` reads a next link: nil (the last page) when absent, null, `""`
    /// or `false`, or zero, as a number or as the string `"0"` (Twitter's `next_cursor` and `next_cursor_str` on its
    /// last page, Redis-style scans; review19 R6: `"0"` was sent back, for the first page again); any other number is
    /// sent back as written (`1489467234237774933`, `1.5e3`: never rounded or respelled). An object, an array or
    /// `true` is no cursor and no end (attack14 M2 / review17 B8: each ended the walk after page 1 with a 200).
    private static func cursor(at path: JSONPath, of page: Page) throws(PaginationError) -> String? {
        switch page.values[path] {
        case nil, .null, .bool(false): return nil
        case .string(let text): return text.isEmpty || text == "0" ? nil : text
        case .number(let text): return Double(text) == 0 ? nil : text
        case let other?:
            throw .cannotContinue(page: page.number, reason: "its cursor at \"\(path)\" is \(other.shortDescription), not a string or a number")
        }
    }

    /// The cursor's text when it is zero, as a string or a number.
    private static func zeroCursor(at path: JSONPath, of page: Page) -> String? {
        switch page.values[path] {
        case .string(let text) where text == "0": text
        case .number(let text) where Double(text) == 0: text
        default: nil
        }
    }

    /// `pageInfo.hasNextPage` beside a cursor path that ends in Relay's `pageInfo.endCursor`; nil for any other path.
    static func relayHasNextPage(beside cursorPath: JSONPath) -> JSONPath? {
        guard cursorPath.components.suffix(2) == [.key("pageInfo"), .key("endCursor")] else { return nil }
        return JSONPath(components: cursorPath.components.dropLast() + [.key("hasNextPage")])
    }
}

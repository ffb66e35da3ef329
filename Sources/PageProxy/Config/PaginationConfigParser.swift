import PageProxyCore

/// Turns a route's `pagination` object into a `PaginationScheme`.
///
/// Besides `scheme`, the keys are exactly the property names of that scheme's option struct; anything
/// left out keeps the struct's default.
enum PaginationConfigParser {
    /// The option keys of each scheme, in `PaginationScheme.names` order.
    static let keys: [(scheme: String, keys: [String])] = [
        ("page-number", ["pageParameter", "firstPage", "sizeParameter", "pageSize", "totalItemsPath",
                         "totalPagesPath", "totalPagesHeader", "totalPagesHeaderPath", "totalItemsHeader",
                         "totalItemsHeaderPath", "totalIsEstimate", "lookahead", "endStatuses", "queryEncoding"]),
        ("offset", ["offsetParameter", "limitParameter", "limit", "totalItemsPath", "totalItemsHeader", "totalItemsHeaderPath",
                    "totalIsEstimate", "filteredPages", "lookahead", "endStatuses", "queryEncoding"]),
        ("link-header", ["pageParameter", "sizeParameter", "pageSize", "lookahead"]),
        ("next-page-header", ["pageParameter", "nextPageHeader", "nextPageHeaderPath", "totalPagesHeader", "totalPagesHeaderPath",
                              "sizeParameter", "pageSize"]),
        ("next-url", ["nextPath", "totalItemsPath", "totalPagesPath", "totalIsEstimate", "morePath"]),
        ("cursor", ["cursorPath", "cursorParameter", "cursorObjectPath", "sizeParameter", "pageSize", "queryEncoding", "morePath"]),
        ("has-more", ["hasMorePath", "idPath", "afterParameter", "sizeParameter", "pageSize", "queryEncoding"]),
    ]

    /// Every scheme a route may name: the walkers' and `auto`.
    static let schemeNames = PaginationScheme.names + ["auto"]

    static let pageSizeRange = 1...10_000

    /// A route's `pagination`: `{"scheme": "auto"}`, or a scheme with its options.
    /// - Parameter items: the route's `items`, when it names one (`auto` then detects only the scheme).
    static func parseRoute(_ object: ConfigObject, items: JSONPath?, warnings: ConfigWarnings) throws(ConfigError) -> RoutePagination {
        guard object["scheme"] == .string("auto") else { return .scheme(try parse(object, warnings: warnings)) }
        try object.requireOnly(["scheme"]) { key in
            "\"\(key)\" is not an option of scheme \"auto\", which detects its scheme and options from the first page; "
                + "name a scheme to set options"
        }
        return .auto(itemsPath: items)
    }
    static let lookaheadRange = 0...64

    static func parse(_ object: ConfigObject, warnings: ConfigWarnings = ConfigWarnings()) throws(ConfigError) -> PaginationScheme {
        guard let schemeValue = object["scheme"] else {
            throw object.error("scheme", "is required; expected one of \(schemeNames.joined(separator: ", "))")
        }
        guard case .string(let scheme) = schemeValue else {
            throw object.error("scheme", "expected a string, found \(schemeValue.summary)")
        }
        guard let allowed = keys.first(where: { $0.scheme == scheme })?.keys else {
            var problem = "unknown scheme \"\(scheme)\""
            if let suggestion = ConfigObject.closest(to: scheme, in: schemeNames) {
                problem += " (did you mean \"\(suggestion)\"?)"
            }
            throw object.error("scheme", problem + "; expected one of \(schemeNames.joined(separator: ", "))")
        }
        try object.requireOnly(["scheme"] + allowed) { key in
            let owners = keys.filter { $0.keys.contains(key) }.map(\.scheme)
            guard !owners.isEmpty else { return nil }
            let schemes = owners.count == 1 ? "the \(owners[0]) scheme" : "the \(list(owners)) schemes"
            return "\"\(key)\" is an option of \(schemes), not of \(scheme); \(scheme) accepts "
                + (allowed.isEmpty ? "no options" : allowed.joined(separator: ", "))
        }
        let reader = OptionReader(object: object, warnings: warnings)
        switch scheme {
        case "page-number":
            var options = PaginationScheme.PageNumber()
            options.pageParameter = try reader.parameter("pageParameter", default: options.pageParameter)
            options.firstPage = try object.integer("firstPage", in: 0...1, default: options.firstPage)
            options.sizeParameter = try reader.nullableParameter("sizeParameter", default: options.sizeParameter)
            options.pageSize = try object.nullableInteger("pageSize", in: pageSizeRange)
            options.totalItemsPath = try reader.nullableValuePath("totalItemsPath", default: options.totalItemsPath)
            options.totalPagesPath = try reader.nullableValuePath("totalPagesPath", default: options.totalPagesPath)
            options.totalPagesHeader = try reader.nullableHeader("totalPagesHeader", default: options.totalPagesHeader)
            options.totalPagesHeaderPath = try reader.headerPath("totalPagesHeaderPath", of: options.totalPagesHeader, "totalPagesHeader")
            options.totalItemsHeader = try reader.nullableHeader("totalItemsHeader", default: options.totalItemsHeader)
            options.totalItemsHeaderPath = try reader.headerPath("totalItemsHeaderPath", of: options.totalItemsHeader, "totalItemsHeader")
            options.totalIsEstimate = try object.bool("totalIsEstimate", default: options.totalIsEstimate)
            options.lookahead = try object.integer("lookahead", in: lookaheadRange, default: options.lookahead)
            options.endStatuses = try reader.statuses("endStatuses", default: options.endStatuses)
            try reader.distinct("sizeParameter", options.sizeParameter, from: "pageParameter", options.pageParameter)
            return .pageNumber(options)
        case "offset":
            var options = PaginationScheme.Offset()
            options.offsetParameter = try reader.parameter("offsetParameter", default: options.offsetParameter)
            options.limitParameter = try reader.parameter("limitParameter", default: options.limitParameter)
            options.limit = try object.integer("limit", in: pageSizeRange, default: options.limit)
            options.totalItemsPath = try reader.nullableValuePath("totalItemsPath", default: options.totalItemsPath)
            options.totalItemsHeader = try reader.nullableHeader("totalItemsHeader", default: options.totalItemsHeader)
            options.totalItemsHeaderPath = try reader.headerPath("totalItemsHeaderPath", of: options.totalItemsHeader, "totalItemsHeader")
            options.totalIsEstimate = try object.bool("totalIsEstimate", default: options.totalIsEstimate)
            options.filteredPages = try object.bool("filteredPages", default: options.filteredPages)
            options.lookahead = try object.integer("lookahead", in: lookaheadRange, default: options.lookahead)
            options.endStatuses = try reader.statuses("endStatuses", default: options.endStatuses)
            try reader.distinct("limitParameter", options.limitParameter, from: "offsetParameter", options.offsetParameter)
            return .offset(options)
        case "link-header":
            var options = PaginationScheme.LinkHeader()
            options.pageParameter = try reader.parameter("pageParameter", default: options.pageParameter)
            options.sizeParameter = try reader.nullableParameter("sizeParameter", default: options.sizeParameter)
            options.pageSize = try object.nullableInteger("pageSize", in: pageSizeRange)
            options.lookahead = try object.integer("lookahead", in: lookaheadRange, default: options.lookahead)
            try reader.distinct("sizeParameter", options.sizeParameter, from: "pageParameter", options.pageParameter)
            return .linkHeader(options)
        case "next-page-header":
            var options = PaginationScheme.NextPageHeader()
            options.pageParameter = try reader.parameter("pageParameter", default: options.pageParameter)
            options.nextPageHeader = try reader.header("nextPageHeader", default: options.nextPageHeader)
            options.nextPageHeaderPath = try reader.headerPath("nextPageHeaderPath", of: options.nextPageHeader, "nextPageHeader")
            options.totalPagesHeader = try reader.nullableHeader("totalPagesHeader", default: options.totalPagesHeader)
            options.totalPagesHeaderPath = try reader.headerPath("totalPagesHeaderPath", of: options.totalPagesHeader, "totalPagesHeader")
            options.sizeParameter = try reader.nullableParameter("sizeParameter", default: options.sizeParameter)
            options.pageSize = try object.nullableInteger("pageSize", in: pageSizeRange)
            try reader.distinct("sizeParameter", options.sizeParameter, from: "pageParameter", options.pageParameter)
            return .nextPageHeader(options)
        case "next-url":
            var options = PaginationScheme.NextURLInBody()
            options.nextPath = try reader.valuePath("nextPath", default: options.nextPath)
            options.totalItemsPath = try reader.nullableValuePath("totalItemsPath", default: options.totalItemsPath)
            options.totalPagesPath = try reader.nullableValuePath("totalPagesPath", default: options.totalPagesPath)
            options.totalIsEstimate = try object.bool("totalIsEstimate", default: options.totalIsEstimate)
            options.morePath = try reader.nullableValuePath("morePath", default: options.morePath)
            try reader.flag("morePath", options.morePath, besides: PaginationScheme.valuesBesideMoreFlag(of: .nextURLInBody(options)))
            return .nextURLInBody(options)
        case "cursor":
            var options = PaginationScheme.CursorInBody()
            options.cursorPath = try reader.valuePath("cursorPath", default: options.cursorPath)
            options.cursorParameter = try reader.parameter("cursorParameter", default: options.cursorParameter)
            options.sizeParameter = try reader.nullableParameter("sizeParameter", default: options.sizeParameter)
            options.pageSize = try object.nullableInteger("pageSize", in: pageSizeRange)
            options.morePath = try reader.nullableValuePath("morePath", default: options.morePath)
            options.cursorObjectPath = try reader.nullableValuePath("cursorObjectPath", default: nil)
            if options.cursorObjectPath != nil, let single = ["cursorPath", "cursorParameter"].first(where: { object[$0] != nil }) {
                // One way to send the cursor back: every member of an object, each under its own name, or one value.
                throw object.error(
                    "cursorObjectPath",
                    "sends every member of the object back under its own name; \"\(single)\" names a single cursor: set one of them")
            }
            try reader.flag("morePath", options.morePath, besides: PaginationScheme.valuesBesideMoreFlag(of: .cursorInBody(options)))
            try reader.distinct("sizeParameter", options.sizeParameter, from: "cursorParameter", options.cursorParameter)
            return .cursorInBody(options)
        default:
            var options = PaginationScheme.HasMore()
            options.hasMorePath = try reader.valuePath("hasMorePath", default: options.hasMorePath)
            options.idPath = try reader.path("idPath", default: options.idPath)
            options.afterParameter = try reader.parameter("afterParameter", default: options.afterParameter)
            options.sizeParameter = try reader.nullableParameter("sizeParameter", default: options.sizeParameter)
            options.pageSize = try object.nullableInteger("pageSize", in: pageSizeRange)
            try reader.distinct("sizeParameter", options.sizeParameter, from: "afterParameter", options.afterParameter)
            return .hasMore(options)
        }
    }

    /// Parses a JSON path field, e.g. a route's `items`.
    static func path(_ text: String, field key: String, in object: ConfigObject) throws(ConfigError) -> JSONPath {
        guard let path = JSONPath(text) else {
            throw object.error(key, "\"\(text)\" is not a valid JSON path: it has an empty step; write keys and "
                + "array indices separated by single dots, e.g. \"links.next\" or \"data.0.id\", or \"\" for the root")
        }
        return path
    }

    private static func list(_ words: [String]) -> String {
        words.count <= 1 ? words.joined() : words.dropLast().joined(separator: ", ") + " and " + words.last!
    }

    /// The typed accessors shared by the schemes' option keys.
    private struct OptionReader {
        let object: ConfigObject
        let warnings: ConfigWarnings

        func parameter(_ key: String, default fallback: String) throws(ConfigError) -> String {
            let name = try object.string(key, default: fallback)
            try checkParameter(name, key)
            return name
        }

        func nullableParameter(_ key: String, default fallback: String?) throws(ConfigError) -> String? {
            guard let name = try object.nullableString(key, default: fallback) else { return nil }
            try checkParameter(name, key)
            return name
        }

        private func checkParameter(_ name: String, _ key: String) throws(ConfigError) {
            guard !name.isEmpty else { throw object.error(key, "must not be empty") }
            for byte in name.utf8 where byte <= 0x20 || byte >= 0x7F || "&=#?".utf8.contains(byte) {
                throw object.error(key, "\"\(name)\" is not a usable query parameter name "
                    + "(no spaces, control or non-ASCII characters, &, =, # or ?)")
            }
        }

        func header(_ key: String, default fallback: String) throws(ConfigError) -> String {
            let name = try object.string(key, default: fallback)
            guard ConfigHeaderRules.isToken(name) else {
                throw object.error(key, "\"\(name)\" is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)")
            }
            return name
        }

        func nullableHeader(_ key: String, default fallback: String?) throws(ConfigError) -> String? {
            guard try object.nullableString(key, default: fallback) != nil else { return nil }
            return try header(key, default: fallback ?? "")
        }

        /// A path into the JSON a header holds (`X-Pagination: {"total_pages": 10}`), which needs that header named.
        func headerPath(_ key: String, of header: String?, _ headerKey: String) throws(ConfigError) -> JSONPath? {
            guard let path = try nullablePath(key, default: nil) else { return nil }
            guard header != nil else {
                throw object.error(key, "reads the JSON of a header, but \"\(headerKey)\" names none; "
                    + "set \"\(headerKey)\" to the header, e.g. \"X-Pagination\"")
            }
            return path
        }

        /// An array of HTTP error statuses (400–599), e.g. `[404, 410]`; `[]` for none. A status that says the
        /// upstream failed (408, 429, 5xx: RFC 9110 §15.5.9 and §15.6, RFC 6585 §4), which PageProxy retries (all but
        /// 501 and 505, `RetryPolicy.retries(status:)`), is no end: as one, an outage on a later page would answer part
        /// of the list with a 200 (attack14 L3). It is left out with a warning (`ConfigWarnings`), not refused: configs
        /// written before fix14 keep loading.
        func statuses(_ key: String, default fallback: Set<Int>) throws(ConfigError) -> Set<Int> {
            guard let elements = try object.array(key) else { return fallback }
            var statuses: Set<Int> = []
            var ignored: [Int] = []
            for element in elements {
                guard case .integer(let status) = element, (400...599).contains(status) else {
                    throw object.error(key, "expected an array of HTTP error statuses (400 to 599), found \(element.summary)")
                }
                if status >= 500 || status == 408 || status == 429 { ignored.append(status) } else { statuses.insert(status) }
            }
            guard !ignored.isEmpty else { return statuses }
            // Nothing left but what was ignored: the default stays (retest15: `[429]` became `[]`, and a 404 past the
            // end, which the default ends a list with, then failed the walk).
            let kept = statuses.isEmpty ? fallback : statuses
            let named = ignored.map(String.init).joined(separator: ", ")
            let left = kept.sorted().map(String.init).joined(separator: ", ")
            warnings.add(object.error(key, "\(named) ignored: \(ignored.count == 1 ? "it says" : "each says") the upstream failed for "
                + "now or for good (PageProxy retries all but 501 and 505), not that the list ended; as an end, an outage on a later "
                + "page would answer "
                + "part of the list with a 200. Remove \(ignored.count == 1 ? "it" : "them") from \"\(key)\"; it is [\(left)]"
                + (statuses.isEmpty ? " (the default)" : "")))
            return kept
        }

        /// Two parameters of a scheme that must differ: one query parameter cannot say both (attack14 L5: the page and
        /// the size both `per_page` set 1, 2, 3 … as each).
        func distinct(_ key: String, _ name: String?, from otherKey: String, _ other: String) throws(ConfigError) {
            guard let name, name == other else { return }
            throw object.error(key, "\"\(name)\" is also the \(otherKey); the upstream reads one parameter as one number")
        }

        /// A flag's path (`morePath`) that certainly names no flag (retest19 F4: each passed check-config, and the walk went
        /// on as without it, one request more): a URL written for a path (`https://…`), or a path that is, holds or lies
        /// inside another value the scheme reads (`morePath` = `cursorPath`: a cursor is never `false`). The route's
        /// `items` are checked by `RouteConfigParser` (`flagOutsideItems`).
        func flag(_ key: String, _ path: JSONPath?, besides others: [(key: String, path: JSONPath?)]) throws(ConfigError) {
            guard let path else { return }
            if path.description.contains("://") {
                throw object.error(key, "\"\(path)\" is a URL, not a JSON path: name the member that holds the page's flag, "
                    + "e.g. \"has_more\" or \"meta.has_more\"")
            }
            if let how = path.collision(with: others) {
                throw object.error(key, "\"\(path)\" \(how): it must name the flag that says whether more pages follow "
                    + "(true or false, e.g. \"has_more\"), beside them")
            }
        }

        /// A path to a value on each page (a next link, a cursor, a total): not the page itself, `""`.
        func valuePath(_ key: String, default fallback: JSONPath) throws(ConfigError) -> JSONPath {
            let path = try path(key, default: fallback)
            guard path != .root else {
                throw object.error(key, "must name a member of the page, e.g. \"next\" or \"meta.total\"; \"\" is the whole page")
            }
            return path
        }

        func nullableValuePath(_ key: String, default fallback: JSONPath?) throws(ConfigError) -> JSONPath? {
            guard let value = object[key] else { return fallback }
            guard value != .null else { return nil }
            return try valuePath(key, default: .root)
        }

        func path(_ key: String, default fallback: JSONPath) throws(ConfigError) -> JSONPath {
            guard object[key] != nil else { return fallback }
            return try PaginationConfigParser.path(try object.string(key, default: ""), field: key, in: object)
        }

        func nullablePath(_ key: String, default fallback: JSONPath?) throws(ConfigError) -> JSONPath? {
            guard let value = object[key] else { return fallback }
            guard value != .null else { return nil }
            return try path(key, default: .root)
        }
    }
}

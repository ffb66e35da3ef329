import PageProxyCore

/// Turns one element of `routes` into a `RouteConfig`.
enum RouteConfigParser {
    static let keys = [
        "name", "upstream", "pagination", "items", "concurrency", "maxPages", "maxItems", "pageTimeoutSeconds",
        "totalTimeoutSeconds", "headers", "forwardHeaders", "ttlSeconds", "staleIfError", "maxPageBytes", "retries",
        "caFile", "maxMergedBytes", "maxRetryAfterSeconds", "originBudget",
    ]

    static let originBudgetKeys = ["maxConcurrent", "requestsPerSecond", "followRateLimitHeaders"]

    /// Paths the proxy serves itself.
    static let reservedNames: Set<String> = ["healthz", "readyz", "metrics"]

    static func parse(
        _ object: ConfigObject, environment: [String: String], warnings: ConfigWarnings = ConfigWarnings()
    ) throws(ConfigError) -> RouteConfig {
        try object.requireOnly(keys)
        let name = try routeName(object)
        var upstream = try upstreamURL(object, environment: environment, warnings: warnings)
        guard let pagination = try object.object("pagination") else {
            throw object.error("pagination", "is required, e.g. { \"scheme\": \"link-header\" }")
        }
        let itemsPath = try PaginationConfigParser.path(try object.string("items", default: ""), field: "items", in: object)
        let parsed = try PaginationConfigParser.parseRoute(pagination, items: object["items"] == nil ? nil : itemsPath, warnings: warnings)
        if object["items"] != nil { try flagOutsideItems(parsed, items: itemsPath, in: pagination) }
        let queryMembers = try RouteQueryEncoding.members(pagination, parsed)
        if let queryMembers { upstream = try RouteQueryEncoding.lifted(upstream, queryMembers, in: object) }
        var route = RouteConfig(
            name: name,
            upstream: upstream,
            pagination: sizeWritten(in: upstream, into: parsed),
            itemsPath: itemsPath,
            concurrency: try object.integer("concurrency", in: 1...64, default: 4),
            maxPages: try object.integer("maxPages", in: 1...1_000_000, default: 1000),
            maxItems: try object.nullableInteger("maxItems", in: 1...Int.max),
            pageTimeout: try object.seconds("pageTimeoutSeconds", in: 1...3600, default: 30),
            totalTimeout: try object.seconds("totalTimeoutSeconds", in: 1...86_400, default: 300),
            headers: try headers(object, environment: environment, warnings: warnings),
            forwardHeaders: try forwardHeaders(object),
            ttl: try object.seconds("ttlSeconds", in: 0...31_536_000, default: 60),
            staleIfError: try object.bool("staleIfError", default: false),
            maxPageBytes: try object.integer("maxPageBytes", in: 1024...1_073_741_824, default: 16 * 1024 * 1024),
            retries: try object.integer("retries", in: 0...10, default: 3),
            caFile: try caFile(object),
            maxMergedBytes: try object.integer("maxMergedBytes", in: 1024...1_099_511_627_776, default: 1 << 30),
            maxRetryAfter: try object.seconds("maxRetryAfterSeconds", in: 0...86_400, default: 30),
            originBudget: try originBudget(object))
        route.queryMembers = queryMembers
        try checkPaginationQuery(of: route, in: object)
        warnPositionInUpstream(of: route, in: object, warnings: warnings)
        return route
    }

    /// A `morePath` that is the route's `items`, or lies inside them or holds them, reads an array or an item's member,
    /// never the page's flag (retest19 F4: it passed check-config and walks went on as without it). `items` at the root
    /// is the whole page, an array: left to the walk's warning (`MorePathWarnings`).
    private static func flagOutsideItems(_ pagination: RoutePagination, items: JSONPath, in object: ConfigObject) throws(ConfigError) {
        guard items != .root, case .scheme(let scheme) = pagination, let more = scheme.morePath, more.overlaps(items) else { return }
        let how = more == items ? "is also the route's items" : "overlaps the route's items \"\(items)\""
        throw object.error("morePath", "\"\(more)\" \(how): it must name the flag beside them that says whether more pages follow "
            + "(true or false, e.g. \"has_more\")")
    }

    /// The route's own `upstream` query passes the check every request's does (`PaginationQueryCheck`): a page or size
    /// parameter it repeats or writes as no number would make every request a 400 blaming the client (attack16 L5).
    private static func checkPaginationQuery(of route: RouteConfig, in object: ConfigObject) throws(ConfigError) {
        let upstream = route.upstream
        let url = PageURL(scheme: upstream.scheme, host: upstream.host, port: upstream.port, path: upstream.path, query: upstream.query)
        do {
            try PaginationQueryCheck.check(url, pagination: route.pagination)
        } catch {
            // The message may quote the query's values: secret-named ones are not printed (retest16 N5).
            let secrets = CredentialRedaction.secrets(in: HTTPHeaders(), query: upstream.query)
            throw object.error("upstream", "its query would refuse every request: \(CredentialRedaction.redactText(error.message, secrets: secrets))")
        }
    }

    /// A route whose `upstream` gives the parameter its walk numbers or moves its pages by (`?page=1`, as an older
    /// `probe` printed it) refuses every client's own (`?page=2`: given twice), a 400 that blamed the client (retest16
    /// L5): a warning naming the route, which `check-config` fails on. Not an error: such a route still answers the
    /// clients that do not send it, as it did before, windows (`_offset`, `_limit`) too, counted from where it starts
    /// (retest17 N2: the warning said windows were refused). Only for the first page's own value (below).
    private static func warnPositionInUpstream(of route: RouteConfig, in object: ConfigObject, warnings: ConfigWarnings) {
        let upstream = route.upstream
        guard case .scheme(let scheme) = route.pagination, let name = PaginationQueryCheck.positionParameter(of: scheme),
            let given = PageURL(scheme: upstream.scheme, host: upstream.host, port: upstream.port, path: upstream.path, query: upstream.query)
                .queryPairs.first(where: { (PageURL.decodeQueryComponent($0.name) ?? $0.name) == name })
        else { return }
        // Only the first page's own value, which PageProxy would give by itself: a route that starts elsewhere
        // (`?page=3`) or a cursor route whose upstream names its first cursor (Synapse's `from=0`) means it, and
        // `check-config` fails on a warning (the real-server harness: a cursor route that worked was refused). A
        // client's own value there is still a 400 that names the route's upstream.
        let value = PageURL.decodeQueryComponent(given.value) ?? given.value
        guard value == firstPosition(of: scheme) else { return }
        let advice = "a client's request that gives \(name) too is refused (400) as giving it twice; windows (_offset, _limit) are answered, "
            + "counted from the first page; remove \(name) from upstream to let clients give it (PageProxy walks from the first page by itself)"
        warnings.add(object.error("upstream", "route \"\(route.name)\" gives \(name) in its own query: \(advice)"))
    }

    /// The value of the position parameter that names a scheme's first page, where a number does (nil for a cursor).
    private static func firstPosition(of scheme: PaginationScheme) -> String? {
        switch scheme {
        case .pageNumber(let options): String(options.firstPage)
        case .offset: "0"
        default: nil
        }
    }

    /// A `page-number` route that names no `pageSize` but writes its size parameter into its `upstream` URL
    /// (`?per_page=100`) has that size as its own: the operator wrote it, and it comes first in every page's query.
    /// Only a size the route names is trusted (`AskedPageSize`, review14 F12), so without this such a route's walks
    /// ended a page later and its windows walked from the first page.
    private static func sizeWritten(in upstream: UpstreamURL, into pagination: RoutePagination) -> RoutePagination {
        guard case .scheme(.pageNumber(var options)) = pagination, options.pageSize == nil,
            let size = PageURL(scheme: upstream.scheme, host: upstream.host, port: upstream.port, path: upstream.path, query: upstream.query)
                .integerQueryValue(options.sizeParameter),
            PaginationConfigParser.pageSizeRange.contains(size)
        else { return pagination }
        options.pageSize = size
        return .scheme(.pageNumber(options))
    }

    /// `originBudget`: the limits of the budget shared by every request to the route's origin.
    private static func originBudget(_ object: ConfigObject) throws(ConfigError) -> OriginBudget.Configuration {
        guard let budget = try object.object("originBudget") else { return OriginBudget.Configuration() }
        try budget.requireOnly(originBudgetKeys)
        return OriginBudget.Configuration(
            maxConcurrent: try budget.nullableInteger("maxConcurrent", in: 1...4096),
            requestsPerSecond: try budget.nullableNumber("requestsPerSecond", in: 0.001...1_000_000),
            followsUpstreamSignals: try budget.bool("followRateLimitHeaders", default: true))
    }

    private static func routeName(_ object: ConfigObject) throws(ConfigError) -> String {
        let name = try object.requiredString("name")
        guard (1...64).contains(name.utf8.count) else {
            throw object.error("name", "must be 1 to 64 characters long, found \(name.utf8.count)")
        }
        let valid = name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        guard valid else {
            // Escaped as a JSON string: a control character (a NUL) is not written raw to a terminal or log (attack13).
            throw object.error("name", "\(JSONText.string(name)) may contain only letters, digits, '.', '_' and '-'")
        }
        // RFC 3986 §5.2.4: clients remove the dot segments of a path before sending it, so `/../x` never reaches the
        // route (attack14 L5).
        guard name != ".", name != ".." else {
            throw object.error("name", "\"\(name)\" is a dot segment, which clients remove from a URL's path: the route could not be reached")
        }
        guard !reservedNames.contains(name) else {
            throw object.error("name", "\"\(name)\" is reserved for the proxy's own endpoint /\(name)")
        }
        return name
    }

    /// `${NAME}` is expanded as in `headers` (attack16 U1: it was sent literally, while probe says to put a query's
    /// secret into `upstream`).
    private static func upstreamURL(
        _ object: ConfigObject, environment: [String: String], warnings: ConfigWarnings
    ) throws(ConfigError) -> UpstreamURL {
        let written = try object.requiredString("upstream")
        let text = try expand(written, field: object.field("upstream"), file: object.file, environment: environment, warnings: warnings)
        switch UpstreamURL.parse(text) {
        case .success(let url): return url
        case .failure(let problem): throw object.error("upstream", problem.message)
        }
    }

    /// The most bytes a route's header lines (`name: value`) may come to: the default limit of a client's.
    static let maxHeaderBytes = HTTPLimits().maxHeaderBytes

    /// `headers` in file order, `${VAR}` expanded. Errors never include a value.
    private static func headers(_ object: ConfigObject, environment: [String: String], warnings: ConfigWarnings) throws(ConfigError)
        -> [(name: String, value: String)]
    {
        guard let headers = try object.object("headers") else { return [] }
        var result: [(name: String, value: String)] = []
        for member in headers.members {
            if let problem = ConfigHeaderRules.problem(setting: member.key) { throw headers.error(member.key, problem) }
            if let earlier = result.first(where: { $0.name.lowercased() == member.key.lowercased() }) {
                throw headers.error(member.key, "repeats the header \"\(earlier.name)\" (names are case-insensitive)")
            }
            guard case .string(let template) = member.value else {
                throw headers.error(member.key, "expected a string, found \(member.value.kind)")
            }
            let value = try expand(template, field: headers.field(member.key), file: object.file, environment: environment, warnings: warnings)
            if let problem = ConfigHeaderRules.problem(withValue: value) { throw headers.error(member.key, problem) }
            result.append((member.key, value))
            // Sent with every page: bounded as PageProxy bounds a request's own header lines (attack13: a 50 MB value
            // passed check-config).
            let lines = result.reduce(0) { $0 + $1.name.utf8.count + 2 + $1.value.utf8.count }
            if lines > Self.maxHeaderBytes {
                throw headers.error(member.key, "the route's header lines come to \(lines) bytes with this one; at most \(Self.maxHeaderBytes), "
                    + "as PageProxy takes of a request (servers often refuse more than 8 KiB)")
            }
        }
        return result
    }

    /// Replaces each `${NAME}` with the environment variable `NAME`. A `$` not followed by `{` stays as it is. A
    /// variable set but empty is a warning (attack16 U1: `A16_KEY=` sent an empty key, silently): most often a secret
    /// a CI job did not inject, so `check-config` fails on it and `serve` logs it; not an error, since an empty part
    /// may be meant (`${A}-${B}`), and a deploy that ran with it keeps running.
    static func expand(
        _ template: String, field: String, file: String, environment: [String: String], warnings: ConfigWarnings? = nil
    ) throws(ConfigError) -> String {
        func fail(_ problem: String) -> ConfigError { ConfigError(file: file, field: field, problem: problem) }
        var output = ""
        var rest = Substring(template)
        while let dollar = rest.firstRange(of: "${") {
            output += rest[..<dollar.lowerBound]
            guard let close = rest[dollar.upperBound...].firstIndex(of: "}") else {
                throw fail("a \"${\" has no closing \"}\"; write ${NAME} to insert an environment variable")
            }
            let name = String(rest[dollar.upperBound..<close])
            let validName = name.first.map { $0 == "_" || ($0.isASCII && $0.isLetter) } == true
                && name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
            guard validName else {
                throw fail("\"${…}\" must enclose an environment variable name (letters, digits and _, not starting with a digit)")
            }
            guard let value = environment[name] else {
                throw fail("the environment variable \(name) is not set")
            }
            if value.isEmpty {
                warnings?.add(fail("the environment variable \(name) is set but empty, and is inserted so (a secret that was not injected?)"))
            }
            output += value
            rest = rest[rest.index(after: close)...]
        }
        return output + rest
    }

    private static func forwardHeaders(_ object: ConfigObject) throws(ConfigError) -> [String] {
        guard let elements = try object.array("forwardHeaders") else { return [] }
        var names: [String] = []
        for (index, element) in elements.enumerated() {
            let field = "forwardHeaders[\(index)]"
            guard case .string(let name) = element else {
                throw object.error(field, "expected a header name string, found \(element.summary)")
            }
            if let problem = ConfigHeaderRules.problem(forwarding: name) { throw object.error(field, problem) }
            if let earlier = names.firstIndex(where: { $0.lowercased() == name.lowercased() }) {
                throw object.error(field, "\"\(name)\" repeats forwardHeaders[\(earlier)] (names are case-insensitive)")
            }
            names.append(name)
        }
        return names
    }

    private static func caFile(_ object: ConfigObject) throws(ConfigError) -> String? {
        guard let path = try object.nullableString("caFile", default: nil) else { return nil }
        guard !path.isEmpty else { throw object.error("caFile", "must not be empty; use null for the system trust store") }
        // Loaded now, so that a missing or unreadable file is a config error (and `check-config` finds it).
        if case .failure(let error) = TLSContext.client(caFile: path) {
            throw object.error("caFile", error.description)
        }
        return path
    }
}

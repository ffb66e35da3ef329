import PageProxyCore

/// A pagination's `queryEncoding`: `"rison"` says its parameters written `q.page` and `q.page_size` are members of the
/// Rison-encoded query parameter `q`, as Flask-AppBuilder and Apache Superset read their pages; `"json"` the same of a
/// JSON object, as GraphQL over GET reads its `variables` (`variables.after`, `variables.first`; real15).
///
/// A dotted name with the encoding, not a separate "in which parameter" option: the name says where the value goes,
/// and every scheme's parameter options keep meaning what they mean (`q.page` is numbered as `page` is).
enum RouteQueryEncoding {
    /// The members a route's parameters name inside a structured parameter; nil without `queryEncoding`.
    static func members(_ pagination: ConfigObject, _ parsed: RoutePagination) throws(ConfigError) -> QueryMembers? {
        guard let written = try pagination.nullableString("queryEncoding", default: nil) else { return nil }
        guard let encoding = QueryMembers.Encoding(rawValue: written) else {
            throw pagination.error(
                "queryEncoding", "\"\(written.prefix(40))\" is not an encoding PageProxy reads; it reads \"rison\" and \"json\"")
        }
        // The page or offset and the size are numbers; a cursor is a string, whatever it looks like.
        let (names, text): ([String], Set<String>) =
            switch parsed {
            case .scheme(.pageNumber(let options)): ([options.pageParameter, options.sizeParameter].compactMap { $0 }, [])
            case .scheme(.offset(let options)): ([options.offsetParameter, options.limitParameter], [])
            case .scheme(.cursorInBody(let options)):
                ([options.cursorParameter, options.sizeParameter].compactMap { $0 }, [options.cursorParameter])
            case .scheme(.hasMore(let options)): ([options.afterParameter, options.sizeParameter].compactMap { $0 }, [options.afterParameter])
            default: ([], [])
            }
        guard let members = QueryMembers(names: names, textNames: text, encoding: encoding) else {
            throw pagination.error(
                "queryEncoding",
                "\"\(encoding.rawValue)\" reads the parameters written as members of one query parameter, e.g. \"pageParameter\": "
                    + "\"q.page\" and \"sizeParameter\": \"q.page_size\"; this route's (\(names.joined(separator: ", "))) name none, or name two parameters")
        }
        return members
    }

    /// The route's `upstream` with the members of its structured parameter lifted out (`?q=(page_size:100)` is the
    /// route's size, as `?per_page=100` is); a `q` that is no such object is an error of `upstream`.
    static func lifted(_ upstream: UpstreamURL, _ members: QueryMembers, in route: ConfigObject) throws(ConfigError) -> UpstreamURL {
        let url = PageURL(scheme: upstream.scheme, host: upstream.host, port: upstream.port, path: upstream.path, query: upstream.query)
        do {
            var lifted = upstream
            let query = try members.lifting(url).query
            lifted.query = query?.isEmpty == true ? nil : query
            return lifted
        } catch {
            throw route.error("upstream", error.message)
        }
    }
}

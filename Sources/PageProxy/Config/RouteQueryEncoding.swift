import PageProxyCore

/// A pagination's `queryEncoding`: `"rison"` says its parameters written `q.page` and `q.page_size` are members of the
/// Rison-encoded query parameter `q`, as Flask-AppBuilder and Apache Superset read their pages (real15).
///
/// A dotted name with the encoding, not a separate "in which parameter" option: the name says where the value goes,
/// and every scheme's parameter options keep meaning what they mean (`q.page` is numbered as `page` is).
enum RouteQueryEncoding {
    /// The members a route's parameters name inside a Rison parameter; nil without `queryEncoding`.
    static func members(_ pagination: ConfigObject, _ parsed: RoutePagination) throws(ConfigError) -> RisonQueryMembers? {
        guard let encoding = try pagination.nullableString("queryEncoding", default: nil) else { return nil }
        guard encoding == "rison" else {
            throw pagination.error("queryEncoding", "\"\(encoding.prefix(40))\" is not an encoding PageProxy reads; the one it reads is \"rison\"")
        }
        let names: [String] =
            switch parsed {
            case .scheme(.pageNumber(let options)): [options.pageParameter, options.sizeParameter].compactMap { $0 }
            case .scheme(.offset(let options)): [options.offsetParameter, options.limitParameter]
            default: []
            }
        guard let members = RisonQueryMembers(names: names) else {
            throw pagination.error(
                "queryEncoding",
                "\"rison\" reads the parameters written as members of one query parameter, e.g. \"pageParameter\": \"q.page\" and "
                    + "\"sizeParameter\": \"q.page_size\"; this route's (\(names.joined(separator: ", "))) name none, or name two parameters")
        }
        return members
    }

    /// The route's `upstream` with the members of its Rison parameter lifted out (`?q=(page_size:100)` is the
    /// route's size, as `?per_page=100` is); a `q` that is no Rison object is an error of `upstream`.
    static func lifted(_ upstream: UpstreamURL, _ members: RisonQueryMembers, in route: ConfigObject) throws(ConfigError) -> UpstreamURL {
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

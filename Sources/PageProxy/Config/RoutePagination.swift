import PageProxyCore

/// How a route paginates: a scheme named in `config.json`, or `auto`, detected from each walk's first page.
enum RoutePagination: Sendable, Equatable {
    case scheme(PaginationScheme)
    /// `"scheme": "auto"`; `itemsPath` is the route's own `items` when it names one, else the items are detected.
    case auto(itemsPath: JSONPath?)

    /// The name written in `config.json`.
    var name: String {
        switch self {
        case .scheme(let scheme): scheme.name
        case .auto: "auto"
        }
    }
}

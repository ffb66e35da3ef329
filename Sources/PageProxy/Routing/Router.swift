import Foundation
import PageProxyCore

/// Maps a request path to PageProxy's own endpoints or to a configured route.
struct Router: Sendable {
    enum Destination {
        case health
        case ready
        case metrics
        /// A route, and the rest of the path (percent-encoded, empty or starting with `/`) to append upstream.
        case aggregate(RouteConfig, subpath: String)
        case notFound
        /// An extra path that `SubpathCheck` refuses: it could climb out of the route's base path upstream.
        case invalidPath
    }

    private let byName: [String: RouteConfig]
    /// Every route, in the config's order.
    let routes: [RouteConfig]
    let routeNames: [String]

    init(routes: [RouteConfig]) {
        self.byName = Dictionary(routes.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.routes = routes
        self.routeNames = routes.map(\.name)
    }

    func destination(for path: String) -> Destination {
        switch path {
        case "/healthz": return .health
        case "/readyz": return .ready
        case "/metrics": return .metrics
        default: break
        }
        let trimmed = path.drop { $0 == "/" }
        let name = trimmed.prefix { $0 != "/" }
        let subpath = String(trimmed.dropFirst(name.count))
        guard let route = byName[PageURL.decodeQueryComponent(String(name)) ?? String(name)] else { return .notFound }
        guard SubpathCheck.isSafe(subpath) else { return .invalidPath }
        return .aggregate(route, subpath: subpath)
    }
}

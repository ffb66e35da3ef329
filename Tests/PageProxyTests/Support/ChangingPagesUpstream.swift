import PageProxyCore
import Synchronization

@testable import PageProxy
@testable import PageProxyServer

/// A paginated upstream whose pages a test changes between requests (v1 → v2), on a loopback server of its own.
///
/// Page N of `pageCount` answers `[{"v":V,"page":N}]` with a `Link` that puts the page parameter first
/// (`?page=N&per_page=10`), as Rails' sorted queries and attack3's upstream do, while a `lookahead` guess appends it
/// (`?per_page=10&page=N`): one page, two spellings.
final class ChangingPagesUpstream: Sendable {
    private struct State {
        var version = 1
        var targets: [String] = []
    }

    private final class Shared: Sendable {
        let lock = Mutex(State())
    }

    private struct Responder: HTTPResponder {
        let state: Shared
        let pageCount: Int

        func respond(to request: HTTPRequestHead, response writer: consuming Response) async -> RequestRecord {
            let version = state.lock.withLock { state in
                state.targets.append(request.target)
                return state.version
            }
            let page = PageURL(string: "http://upstream" + request.target)?.integerQueryValue("page") ?? 1
            guard (1...pageCount).contains(page) else {
                await writer.send(.notFound, headers: HTTPHeaders(), body: [])
                return RequestRecord()
            }
            let base = "http://" + (request.headers["Host"] ?? "127.0.0.1") + "/items?page="
            var links: [String] = []
            if page < pageCount {
                links.append("<\(base)\(page + 1)&per_page=10>; rel=\"next\"")
                links.append("<\(base)\(pageCount)&per_page=10>; rel=\"last\"")
            }
            var headers = HTTPHeaders()
            headers.set("Content-Type", "application/json")
            headers.set("Cache-Control", "max-age=600")
            if !links.isEmpty { headers.set("Link", links.joined(separator: ", ")) }
            await writer.send(.ok, headers: headers, body: Array(#"[{"v":\#(version),"page":\#(page)}]"#.utf8))
            return RequestRecord()
        }
    }

    private let state = Shared()
    let server: Server

    /// Starts the server on an ephemeral loopback port.
    init(pageCount: Int = 5) throws {
        server = try Server(
            address: SocketAddress(host: "127.0.0.1", port: 0), limits: ServerLimits(),
            responder: Responder(state: state, pageCount: pageCount), logger: Logger(level: .error))
    }

    /// A `link-header` route named `name` over this upstream, ten items a page, with `lookahead` guesses.
    func route(_ name: String, lookahead: Int = 0) -> RouteConfig {
        var route = RouteConfig.makeForTests(
            name: name, upstream: "http://127.0.0.1:\(server.port)/items",
            pagination: .linkHeader(PaginationScheme.LinkHeader(pageSize: 10, lookahead: lookahead)))
        route.concurrency = 4
        return route
    }

    /// Every page answers version `version` from now on.
    func set(version: Int) { state.lock.withLock { $0.version = version } }

    /// The request targets received, in order.
    var targets: [String] { state.lock.withLock { $0.targets } }

    func stop() async { await server.stop(grace: .zero) }
}

import Foundation
import PageProxyCore
import Synchronization

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// An upstream of one page whose body and `Cache-Control` a test changes between requests (v1 → v2), on a loopback
/// server of its own. The page's strong `ETag` follows its body, and a matching `If-None-Match` gets a 304 carrying
/// the current `ETag` and `Cache-Control` (RFC 9111 §4.3.4), as a real server's would.
final class ChangingUpstream: Sendable {
    /// One request as received: its target and the validator it sent, if any.
    struct Received: Sendable {
        var target: String
        var ifNoneMatch: String?
    }

    private final class Shared: Sendable {
        let lock = Mutex(State())
    }

    private struct State {
        var body = #"[{"v":1}]"#
        var cacheControl: String? = "max-age=600"
        /// More headers of every answer (`Expires`, `Vary`, …).
        var more: [(String, String)] = []
        /// Pages past this one are empty (1: from `?page=2` on, a list shorter than a stated total); nil: none is.
        var lastPageWithItems: Int? = nil
        var received: [Received] = []
        /// Told each page number asked, before it is answered (a test that moves a clock between two pages).
        var onPage: (@Sendable (Int) -> Void)? = nil
    }

    /// Answers requests from the page's current state.
    private struct Responder: HTTPResponder {
        let state: Shared

        func respond(to request: HTTPRequestHead, response writer: consuming Response) async -> RequestRecord {
            let (body, cacheControl, more, page, onPage) = state.lock.withLock { state in
                state.received.append(Received(target: request.target, ifNoneMatch: request.headers["If-None-Match"]))
                let page = URLComponents(string: request.target)?.queryItems?.first { $0.name == "page" }?.value.flatMap { Int($0) } ?? 1
                let pastTheLast = state.lastPageWithItems.map { page > $0 } ?? false
                // `{page}` in the body is the page's number: numbered pages that differ, as an honest upstream's do (real14:
                // a second page that repeats the first is refused, `IgnoredPageNumber`).
                let body = state.body.replacingOccurrences(of: "{page}", with: String(page))
                return (pastTheLast ? "[]" : body, state.cacheControl, state.more, page, state.onPage)
            }
            onPage?(page)
            var headers = HTTPHeaders()
            let tag = "\"" + SHA256.hex(SHA256.hash(Array(body.utf8))).prefix(16) + "\""
            headers.set("ETag", tag)
            if let cacheControl { headers.set("Cache-Control", cacheControl) }
            for (name, value) in more { headers.add(name, value) }
            if AggregateETag.matches(ifNoneMatch: request.headers.values("If-None-Match"), etag: tag) {
                await writer.send(.notModified, headers: headers, body: [])
                return RequestRecord()
            }
            headers.set("Content-Type", "application/json")
            await writer.send(.ok, headers: headers, body: Array(body.utf8))
            return RequestRecord()
        }
    }

    private let state = Shared()
    let server: Server

    /// Starts the server on an ephemeral loopback port.
    init() throws {
        server = try Server(
            address: SocketAddress(host: "127.0.0.1", port: 0), limits: ServerLimits(), responder: Responder(state: state),
            logger: Logger(level: .error))
    }

    /// The route that walks this upstream: one page (no `Link` header), items at the root.
    var route: RouteConfig {
        RouteConfig.makeForTests(
            name: "changing", upstream: "http://127.0.0.1:\(server.port)/items", pagination: .linkHeader(PaginationScheme.LinkHeader()))
    }

    func set(body: String, cacheControl: String?, more: [(String, String)] = []) {
        state.lock.withLock { state in
            state.body = body
            state.cacheControl = cacheControl
            state.more = more
        }
    }

    /// Makes every page past the first empty.
    func emptyPagesPastTheFirst() { emptyPages(past: 1) }

    /// Makes every page past page `last` empty: the list ends there (a full last page is followed by an empty one).
    func emptyPages(past last: Int) { state.lock.withLock { $0.lastPageWithItems = last } }

    /// Calls `hook` with each page number asked, before it is answered.
    func onPage(_ hook: @escaping @Sendable (Int) -> Void) { state.lock.withLock { $0.onPage = hook } }

    var received: [Received] { state.lock.withLock { $0.received } }

    func resetLog() { state.lock.withLock { $0.received = [] } }

    func stop() async { await server.stop(grace: .zero) }
}

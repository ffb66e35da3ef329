import Foundation
import PageProxyCore
import Synchronization
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The mock upstream and a real PageProxy server in this test process, both on ephemeral loopback ports.
///
/// `start` returns once both listen (the ports are bound before it returns), so no test waits by sleeping.
final class TestStack: Sendable {
    let mock: MockUpstream
    let mockServer: Server
    let app: PageProxyApp
    let logs: LogCollector

    var port: Int { app.server.port }
    var mockPort: Int { mockServer.port }

    /// A route of the test config, pointing at a path of the mock.
    struct Route {
        var name: String
        var mockPath: String
        var scheme: PaginationScheme
        var items = JSONPath.root
        var concurrency = 4
        var maxPages = 1000
        var configure: @Sendable (inout RouteConfig) -> Void = { _ in }

        /// This route with its pages fresh for a day, unless its own `configure` sets a `ttl`. For tests that expect a
        /// cache hit (or "no upstream request") some time after the store: the test default of 60 s can pass on a
        /// loaded machine between a walk and its repeat (flake23: a restarted walk revalidated a page instead of
        /// sending it from its file). Not for tests about expiry.
        var freshForADay: Route {
            var route = self
            let configure = self.configure
            route.configure = { config in
                config.ttl = .seconds(86_400)
                configure(&config)
            }
            return route
        }
    }

    static func start(
        routes: [Route], mockOptions: MockUpstreamOptions = MockUpstreamOptions(), configure: (inout Config) -> Void = { _ in },
        spool: MergedSpool? = nil, clock: PageProxyClock = .system, onCacheWrite: (@Sendable (CacheKey) -> Void)? = nil
    ) throws -> TestStack {
        let logs = LogCollector()
        let logger = Logger(level: .debug) { line in logs.append(line) }
        let mock = MockUpstream(options: mockOptions)
        let mockServer = try Server(
            address: SocketAddress(host: "127.0.0.1", port: 0), limits: ServerLimits(), responder: MockHTTPResponder(mock: mock),
            logger: Logger(level: .error))
        var config = Config.makeForTests(routes: routes.map { route in
            var config = RouteConfig.makeForTests(
                name: route.name, upstream: "http://127.0.0.1:\(mockServer.port)\(route.mockPath)", pagination: route.scheme)
            config.itemsPath = route.items
            config.concurrency = route.concurrency
            config.maxPages = route.maxPages
            route.configure(&config)
            return config
        })
        configure(&config)
        let app = try PageProxyApp.start(config: config, logger: logger, spool: spool, clock: clock, onCacheWrite: onCacheWrite)
        return TestStack(mock: mock, mockServer: mockServer, app: app, logs: logs)
    }

    private init(mock: MockUpstream, mockServer: Server, app: PageProxyApp, logs: LogCollector) {
        self.mock = mock
        self.mockServer = mockServer
        self.app = app
        self.logs = logs
    }

    /// Starts a stack, runs `body` with it, and stops it whatever happens.
    @discardableResult
    static func run<T>(
        routes: [Route] = SchemeRoutes.all, mockOptions: MockUpstreamOptions = SchemeRoutes.mockOptions,
        configure: (inout Config) -> Void = { _ in }, spool: MergedSpool? = nil, clock: PageProxyClock = .system,
        onCacheWrite: (@Sendable (CacheKey) -> Void)? = nil, _ body: (TestStack) async throws -> T
    ) async throws -> T {
        let stack = try start(
            routes: routes, mockOptions: mockOptions, configure: configure, spool: spool, clock: clock, onCacheWrite: onCacheWrite)
        do {
            let result = try await body(stack)
            await stack.stop()
            return result
        } catch {
            await stack.stop()
            throw error
        }
    }

    /// Stops both servers. A hold of the mock's (`holdUntilInFlight`) that had to open at its time limit is an issue
    /// of the test: the fan-out it waited for never came (cleanup24: it went on silently, and only a peak check failed).
    func stop() async {
        await app.stop(grace: .seconds(5))
        await mockServer.stop(grace: .zero)
        if let gate = mock.gate, gate.openedAtLimit {
            Issue.record("the mock's hold opened at its \(gate.limit) limit: \(gate.count) requests were never in flight at once")
        }
    }

    /// Connects a raw client to the proxy; `receiveBufferBytes` sets the client's `SO_RCVBUF` (a slow reader).
    func client(receiveBufferBytes: Int? = nil) async throws -> RawHTTPClient {
        try await RawHTTPClient.connect(port: port, receiveBufferBytes: receiveBufferBytes)
    }

    /// One GET on a new connection.
    func get(_ target: String, headers: [String: String] = [:]) async throws -> RawHTTPClient.Response {
        try await client().request(target, headers: headers)
    }
}

/// Collects log lines written during a test.
final class LogCollector: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}

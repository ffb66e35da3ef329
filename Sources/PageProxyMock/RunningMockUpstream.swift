import PageProxyCore
import PageProxyServer

/// A mock upstream serving HTTP/1.1 on a port of this process, started by `MockUpstream.start(options:host:port:)`:
/// point a client under test at `baseURL` followed by a service's path (`/github/items`, `/drf/items/` …; README
/// "The mock upstream").
public final class RunningMockUpstream: Sendable {
    /// The port it listens on (the one the system chose when asked for port 0).
    public let port: Int
    /// `http://HOST:PORT`, with no trailing slash.
    public let baseURL: String
    let mock: MockUpstream
    private let server: Server

    init(mock: MockUpstream, server: Server, host: String) {
        self.mock = mock
        self.server = server
        port = server.port
        baseURL = "http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)"
    }

    /// How many requests it has received so far.
    public var requestCount: Int { mock.log.count }

    /// The most requests it has been answering at one time: a test can prove a client's concurrency from it.
    public var peakInFlight: Int { mock.log.peakInFlight }

    /// The request targets it received (path and query), oldest first.
    public var requestTargets: [String] { mock.log.requests.map(\.target) }

    /// Stops listening, lets answers in flight finish for up to `grace`, then closes what is left.
    public func stop(grace: Duration = .seconds(1)) async {
        await server.stop(grace: grace)
    }
}

/// The mock could not listen (the port is taken, the address is not local …).
public struct MockUpstreamStartError: Error, CustomStringConvertible {
    public let description: String
}

extension MockUpstream {
    /// Starts a mock upstream listening on `host`:`port` (port 0: one the system picks) in this process; it is
    /// listening when this returns, so a test never waits for it.
    ///
    /// ```swift
    /// let upstream = try MockUpstream.start(options: MockUpstreamOptions(totalItems: 95, pageSize: 10))
    /// defer { Task { await upstream.stop() } }
    /// let pages = try await myClient.fetchAll(upstream.baseURL + "/github/items")
    /// #expect(upstream.requestCount == 10)
    /// ```
    /// - Throws: `MockUpstreamStartError` when it cannot listen.
    public static func start(
        options: MockUpstreamOptions = MockUpstreamOptions(), host: String = "127.0.0.1", port: Int = 0
    ) throws(MockUpstreamStartError) -> RunningMockUpstream {
        let mock = MockUpstream(options: options)
        do {
            let server = try Server(
                address: SocketAddress(host: host, port: port), limits: ServerLimits(), responder: MockHTTPResponder(mock: mock),
                logger: Logger(level: .error))
            return RunningMockUpstream(mock: mock, server: server, host: host)
        } catch {
            throw MockUpstreamStartError(description: "the mock upstream could not listen on \(host):\(port): \(error.description)")
        }
    }
}

import PageProxyCore

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

extension Config {
    /// A config for tests: listens on an ephemeral loopback port, no mock section, the given routes.
    static func makeForTests(routes: [RouteConfig]) -> Config {
        Config(
            listen: ListenConfig(address: "127.0.0.1", port: 0),
            cache: CacheConfig(directory: "/tmp/pageproxy-tests-unused", maxBytes: 0),
            server: ServerConfig(
                maxConnections: 256, headerTimeout: .seconds(10), idleTimeout: .seconds(60), shutdownGrace: .seconds(5),
                maxRequestLineBytes: 8192, maxHeaderBytes: 32768),
            logLevel: .debug, mock: nil, routes: routes)
    }
}

extension RouteConfig {
    /// A route with the defaults of `config.json`.
    static func makeForTests(name: String, upstream: String, pagination: PaginationScheme) -> RouteConfig {
        let url = PageURL(string: upstream)!
        return RouteConfig(
            name: name,
            upstream: UpstreamURL(text: upstream, scheme: url.scheme, host: url.host, port: url.port, path: url.path, query: url.query),
            pagination: .scheme(pagination), itemsPath: .root, concurrency: 4, maxPages: 1000, maxItems: nil, pageTimeout: .seconds(30),
            totalTimeout: .seconds(300), headers: [], forwardHeaders: [], ttl: .seconds(60), staleIfError: false,
            maxPageBytes: 16 << 20, retries: 3, caFile: nil)
    }
}

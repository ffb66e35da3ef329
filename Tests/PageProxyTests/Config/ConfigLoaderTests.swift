import Foundation
import Synchronization
import PageProxyCore
@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer
import Testing

/// Whole documents: the shipped example, defaults, a full round trip, files and environment overrides.
@Suite struct ConfigLoaderTests {
    /// The package root, four levels above this file (`Tests/PageProxyTests/Config/<file>`).
    static let packageRoot: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    @Test func shippedExampleLoads() throws {
        let config = try ConfigLoader.load(path: Self.packageRoot + "/config.json", environment: [:])
        #expect(config.listen == ListenConfig(address: "127.0.0.1", port: 8080))
        #expect(config.cache == CacheConfig(directory: ".pageproxy-cache", maxBytes: 268_435_456, warmBytes: 64 << 20))
        #expect(!config.cache.sendsFromFiles)
        #expect(config.server.maxConnections == 1024)
        #expect(config.logLevel == .info)
        #expect(config.mock?.items == 250)
        let demo = try #require(config.route(named: "demo"))
        #expect(demo.upstream.path == "/github/items")
        var linkHeader = PaginationScheme.LinkHeader()
        linkHeader.pageSize = 20
        #expect(demo.pagination == .scheme(.linkHeader(linkHeader)))
        #expect(demo.forwardHeaders == ["Authorization"])
        #expect(!demo.headers.contains { $0.name == "Authorization" })
    }

    @Test func defaultsApplyToAMinimalDocument() throws {
        let config = try ConfigFixture.parse(ConfigFixture.document())
        #expect(config.listen == ListenConfig(address: "127.0.0.1", port: 8080))
        #expect(config.cache == CacheConfig(directory: ".pageproxy-cache", maxBytes: 268_435_456, warmBytes: 64 << 20))
        #expect(config.server == ServerConfig(maxConnections: 1024, headerTimeout: .seconds(10), idleTimeout: .seconds(60),
                                              shutdownGrace: .seconds(10), maxRequestLineBytes: 8192, maxHeaderBytes: 32768,
                                              sendBufferBytes: 262_144))
        #expect(config.logLevel == .info)
        #expect(config.mock == nil)
        let route = config.routes[0]
        #expect(route.name == "r")
        #expect(route.upstream == UpstreamURL(text: "http://example.com/items", scheme: "http", host: "example.com",
                                              port: 80, path: "/items", query: nil))
        #expect(route.pagination == .scheme(.linkHeader(PaginationScheme.LinkHeader())))
        #expect(route.itemsPath == .root)
        #expect(route.concurrency == 4)
        #expect(route.maxPages == 1000)
        #expect(route.maxItems == nil)
        #expect(route.pageTimeout == .seconds(30))
        #expect(route.totalTimeout == .seconds(300))
        #expect(route.headers.isEmpty)
        #expect(route.forwardHeaders.isEmpty)
        #expect(route.ttl == .seconds(60))
        #expect(route.staleIfError == false)
        #expect(route.maxPageBytes == 16_777_216)
        #expect(route.maxMergedBytes == 1_073_741_824)
        #expect(route.maxRetryAfter == .seconds(30))
        #expect(route.retries == 3)
        #expect(route.caFile == nil)
    }

    @Test func mockDefaultsWhenPresentButEmpty() throws {
        let config = try ConfigFixture.parse(ConfigFixture.document(top: #""mock": {}"#))
        #expect(config.mock == MockConfig(address: "127.0.0.1", port: 8081, items: 250, pageSize: 20, latency: .zero))
        #expect(try ConfigFixture.parse(ConfigFixture.document(top: #""mock": null"#)).mock == nil)
    }

    @Test("cache.warmBytes: by default the cache's memory bound for pages (maxBytes, at most 64 MiB); 0 turns it off")
    func warmBytesDefaultsToTheMemoryBound() throws {
        func cache(_ fields: String) throws -> CacheConfig {
            try ConfigFixture.parse(ConfigFixture.document(top: #""cache": {\#(fields)}"#)).cache
        }
        #expect(try cache(#""maxBytes": 1000000"#).warmBytes == 1_000_000)
        #expect(try cache(#""maxBytes": 1000000000"#).warmBytes == 64 << 20)
        #expect(try cache(#""maxBytes": 1000000000, "warmBytes": 0"#).warmBytes == 0)
        #expect(throws: ConfigError.self) { try cache(#""warmBytes": -1"#) }
    }

    @Test("cache.warmBytes: none by default with sendFromFiles (its pages stay in their files); an explicit value stays")
    func warmBytesDefaultsToNoneWhenSendingFromFiles() throws {
        func cache(_ fields: String) throws -> CacheConfig {
            try ConfigFixture.parse(ConfigFixture.document(top: #""cache": {\#(fields)}"#)).cache
        }
        #expect(try cache(#""sendFromFiles": true"#).warmBytes == 0)
        #expect(try cache(#""maxBytes": 1000000, "sendFromFiles": true"#).warmBytes == 0)
        #expect(try cache(#""sendFromFiles": false"#).warmBytes == 64 << 20)
        #expect(try cache(#""sendFromFiles": true, "warmBytes": 1000"#).warmBytes == 1000)
    }

    @Test func everyFieldRoundTrips() throws {
        let json = """
            {
              "listen": { "address": "0.0.0.0", "port": 0 },
              "cache": { "directory": "/var/cache/pp", "maxBytes": 0, "sendFromFiles": true, "warmBytes": 12345 },
              "server": { "maxConnections": 7, "headerTimeoutSeconds": 2, "idleTimeoutSeconds": 3,
                          "shutdownGraceSeconds": 0, "maxRequestLineBytes": 256, "maxHeaderBytes": 1024,
                          "sendBufferBytes": 0, "drainDelaySeconds": 0, "writeTimeoutSeconds": 4 },
              "logLevel": "debug",
              "mock": { "address": "127.0.0.2", "port": 9, "items": 0, "pageSize": 10000, "latencyMs": 1500 },
              "routes": [
                { "name": "Full_route.1-x",
                  "upstream": "https://API.example.com:8443/v1/things?state=open&sort=id",
                  "pagination": { "scheme": "offset", "limit": 50 },
                  "items": "data.results",
                  "concurrency": 64, "maxPages": 1000000, "maxItems": 5,
                  "pageTimeoutSeconds": 3600, "totalTimeoutSeconds": 86400,
                  "headers": { "Accept": "application/json", "X-Trace": "on" },
                  "forwardHeaders": ["Authorization", "X-Request-Id"],
                  "ttlSeconds": 0, "staleIfError": true, "maxPageBytes": 1024, "retries": 10, "caFile": null,
                  "maxMergedBytes": 1099511627776, "maxRetryAfterSeconds": 0 },
                { "name": "second", "upstream": "http://[::1]/", "pagination": { "scheme": "next-url" } }
              ]
            }
            """
        let config = try ConfigFixture.parse(json)
        #expect(config.listen == ListenConfig(address: "0.0.0.0", port: 0))
        #expect(config.cache == CacheConfig(directory: "/var/cache/pp", maxBytes: 0, sendsFromFiles: true, warmBytes: 12345))
        #expect(config.server == ServerConfig(maxConnections: 7, headerTimeout: .seconds(2), idleTimeout: .seconds(3),
                                              shutdownGrace: .zero, maxRequestLineBytes: 256, maxHeaderBytes: 1024,
                                              sendBufferBytes: 0, writeTimeout: .seconds(4), drainDelay: .zero))
        #expect(config.logLevel == .debug)
        #expect(config.mock == MockConfig(address: "127.0.0.2", port: 9, items: 0, pageSize: 10000,
                                          latency: .milliseconds(1500)))
        let route = try #require(config.route(named: "Full_route.1-x"))
        #expect(route.upstream == UpstreamURL(
            text: "https://API.example.com:8443/v1/things?state=open&sort=id", scheme: "https",
            host: "API.example.com", port: 8443, path: "/v1/things", query: "state=open&sort=id"))
        var offset = PaginationScheme.Offset()
        offset.limit = 50
        #expect(route.pagination == .scheme(.offset(offset)))
        #expect(route.itemsPath == JSONPath(components: [.key("data"), .key("results")]))
        #expect(route.concurrency == 64)
        #expect(route.maxPages == 1_000_000)
        #expect(route.maxItems == 5)
        #expect(route.pageTimeout == .seconds(3600))
        #expect(route.totalTimeout == .seconds(86400))
        #expect(route.headers.map(\.name) == ["Accept", "X-Trace"])
        #expect(route.headers.map(\.value) == ["application/json", "on"])
        #expect(route.forwardHeaders == ["Authorization", "X-Request-Id"])
        #expect(route.ttl == .zero)
        #expect(route.staleIfError)
        #expect(route.maxPageBytes == 1024)
        #expect(route.maxMergedBytes == 1_099_511_627_776)
        #expect(route.maxRetryAfter == .zero)
        #expect(route.retries == 10)
        #expect(route.caFile == nil)
        let second = try #require(config.route(named: "second"))
        #expect(second.upstream.host == "::1")
        #expect(second.upstream.port == 80)
        #expect(second.upstream.path == "/")
        #expect(config.route(named: "missing") == nil)
    }

    @Test func errorDescriptionNamesFileFieldAndProblem() {
        let error = ConfigError(file: "config.json", field: "routes[0].pagination.scheme", problem: "unknown scheme \"pages\"")
        #expect(error.description == "config.json: routes[0].pagination.scheme: unknown scheme \"pages\"")
        #expect(ConfigError(file: "c.json", field: "", problem: "p").description == "c.json: p")
    }

    // MARK: Files

    @Test func missingFileNamesThePathAndReason() {
        let path = "/nonexistent-\(Int.random(in: 0..<1_000_000))/config.json"
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: path, environment: [:]) }
        #expect(error?.file == path)
        #expect(error?.field == "")
        #expect(error?.problem.contains("cannot read") == true)
        #expect(error?.problem.contains("No such file or directory") == true)
        #expect(error?.description.hasPrefix(path + ": ") == true)
    }

    @Test func directoryIsUnreadable() {
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: Self.packageRoot, environment: [:]) }
        // attack11 U1: said as what it is, whatever read(2) left in errno.
        #expect(error?.problem.contains("cannot read the file: it is a directory") == true, "\(String(describing: error))")
    }

    // MARK: Environment overrides

    @Test func environmentOverridesTheFile() throws {
        let json = ConfigFixture.document(top: #""listen": { "address": "127.0.0.1", "port": 8080 }, "cache": { "directory": "a" }"#)
        let config = try ConfigFixture.parse(json, environment: [
            "PAGEPROXY_ADDRESS": "0.0.0.0", "PAGEPROXY_PORT": "0", "PAGEPROXY_CACHE_DIR": "/tmp/pp-cache",
        ])
        #expect(config.listen == ListenConfig(address: "0.0.0.0", port: 0))
        #expect(config.cache.directory == "/tmp/pp-cache")
        #expect(config.cache.maxBytes == 268_435_456)
    }

    @Test("PAGEPROXY_MOCK_PORT moves the built-in mock and the routes that name it, so that a second copy of a config runs")
    func mockPortOverride() throws {
        let json = """
            {"mock": {"port": 8081}, "routes": [
              {"name": "m", "upstream": "http://127.0.0.1:8081/github/items", "pagination": {"scheme": "link-header"}},
              {"name": "o", "upstream": "http://127.0.0.1:8082/items", "pagination": {"scheme": "link-header"}}]}
            """
        let moved = try ConfigFixture.parse(json, environment: ["PAGEPROXY_MOCK_PORT": "9091"])
        #expect(moved.mock?.port == 9091)
        #expect(moved.routes.map(\.upstream.port) == [9091, 8082])
        #expect(try ConfigFixture.parse(json, environment: [:]).mock?.port == 8081)
        // Without a mock section nothing would listen there: an error naming the variable (attack13: silently ignored).
        do {
            _ = try ConfigFixture.parse(ConfigFixture.document(), environment: ["PAGEPROXY_MOCK_PORT": "9091"])
            Issue.record("PAGEPROXY_MOCK_PORT without a mock section was accepted")
        } catch {
            #expect(error.field == "$PAGEPROXY_MOCK_PORT")
            #expect(error.problem.contains(#"no "mock" section"#), "\(error)")
        }
    }

    @Test(arguments: [
        ("PAGEPROXY_ADDRESS", "localhost", "IPv4"),
        ("PAGEPROXY_ADDRESS", "256.0.0.1", "IPv4"),
        ("PAGEPROXY_PORT", "http", "0...65535"),
        ("PAGEPROXY_PORT", "65536", "0...65535"),
        ("PAGEPROXY_PORT", "-1", "0...65535"),
        ("PAGEPROXY_PORT", " 80", "0...65535"),
        ("PAGEPROXY_PORT", "", "0...65535"),
        ("PAGEPROXY_MOCK_PORT", "8o81", "0...65535"),
        ("PAGEPROXY_CACHE_DIR", "", "empty"),
    ])
    func invalidEnvironmentOverrideNamesTheVariable(variable: String, value: String, mention: String) {
        ConfigFixture.expectError(ConfigFixture.document(), field: "$" + variable, mentions: [mention],
                                  environment: [variable: value])
    }

    /// attack16 U1: `check-config` of a FIFO with no writer waited in open(2) for ever.
    @Test("a FIFO with no writer is refused at once as no regular file, not waited on")
    func aFIFOWithNoWriterIsNotWaitedOn() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-fifo-\(UUID().uuidString)").path
        try #require(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        // Bounded: a load that hangs leaves its thread behind and fails here after 60 s rather than hang the suite.
        let problem = await onOwnThread { () -> String? in
            let done = DispatchSemaphore(value: 0)
            let found = Mutex<String?>(nil)
            Thread.detachNewThread {
                do {
                    _ = try ConfigLoader.load(path: path, environment: [:])
                } catch {
                    found.withLock { $0 = "\(error)" }
                }
                done.signal()
            }
            guard done.wait(timeout: .now() + 60) == .success else { return "no answer in 60 s" }
            return found.withLock { $0 }
        }
        // Said to be no regular file (retest16: it said "the file is empty").
        #expect(problem?.contains("not a regular file") == true, "\(problem ?? "loaded")")
    }
}

import PageProxyMock
import PageProxyServer
import Glibc

/// Reads `config.json`, validates every field and applies the environment overrides.
///
/// Every problem is a `ConfigError` naming the file, the field and what is wrong.
enum ConfigLoader {
    static let keys = ["listen", "cache", "server", "logLevel", "mock", "routes"]

    static func load(path: String, environment: [String: String]) throws(ConfigError) -> Config {
        let bytes: [UInt8]
        switch readFile(path) {
        case .success(let contents): bytes = contents
        case .failure(let reason): throw ConfigError(file: path, field: "", problem: "cannot read the file: \(reason.message) (give the path with --config PATH; the default is ./config.json)")
        }
        return try parse(bytes, file: path, environment: environment)
    }

    static func parse(_ data: [UInt8], file: String, environment: [String: String]) throws(ConfigError) -> Config {
        let document: ConfigValue
        do {
            document = try ConfigJSONReader.read(data)
        } catch {
            let (line, column) = error.location(in: data)
            throw ConfigError(file: file, field: "", problem: "not valid JSON at line \(line), column \(column): \(error.message)")
        }
        let root = try ConfigObject(document, path: "", file: file)
        try root.requireOnly(keys)

        var listen = try listenConfig(try root.object("listen"))
        var cache = try cacheConfig(try root.object("cache"))
        let server = try serverConfig(try root.object("server"))
        let logLevel = try logLevel(root)
        var mock = try mockConfig(try root.object("mock", nullable: true))
        let warnings = ConfigWarnings()
        var routes = try routeConfigs(root, environment: environment, warnings: warnings)

        if let address = environment["PAGEPROXY_ADDRESS"] {
            guard isIPv4(address) else {
                throw ConfigError(file: file, field: "$PAGEPROXY_ADDRESS",
                                  problem: "expected an IPv4 address such as 127.0.0.1 or 0.0.0.0, found \"\(address)\"")
            }
            listen.address = address
        }
        if let port = try port(environment, "PAGEPROXY_PORT", file: file) { listen.port = port }
        // Routes that name the built-in mock (http, its address and port) follow it, so that a second copy of a config
        // runs whole beside the first. Without a mock section nothing would listen there: said, not ignored (attack13).
        if let port = try port(environment, "PAGEPROXY_MOCK_PORT", file: file) {
            guard let configured = mock else {
                throw ConfigError(file: file, field: "$PAGEPROXY_MOCK_PORT",
                                  problem: "set to \(port), but the file has no \"mock\" section, so no built-in mock runs; "
                                      + "unset it, or add \"mock\": {} to run the mock")
            }
            for index in routes.indices {
                let upstream = routes[index].upstream
                guard upstream.scheme == "http", upstream.host == configured.address, upstream.port == configured.port else { continue }
                routes[index].upstream.port = port
            }
            mock?.port = port
        }
        if let directory = environment["PAGEPROXY_CACHE_DIR"] {
            guard !directory.isEmpty else {
                throw ConfigError(file: file, field: "$PAGEPROXY_CACHE_DIR", problem: "must not be empty")
            }
            cache.directory = directory
        }
        return Config(listen: listen, cache: cache, server: server, logLevel: logLevel, mock: mock, routes: routes, warnings: warnings.all)
    }

    // MARK: Sections

    private static func listenConfig(_ object: ConfigObject?) throws(ConfigError) -> ListenConfig {
        guard let object else { return ListenConfig(address: "127.0.0.1", port: 8080) }
        try object.requireOnly(["address", "port"])
        return ListenConfig(address: try address(object, default: "127.0.0.1"),
                            port: try object.integer("port", in: 0...65535, default: 8080))
    }

    private static func cacheConfig(_ object: ConfigObject?) throws(ConfigError) -> CacheConfig {
        guard let object else {
            return CacheConfig(
                directory: ".pageproxy-cache", maxBytes: 268_435_456, warmBytes: CacheConfig.defaultWarmBytes(maxBytes: 268_435_456))
        }
        try object.requireOnly(["directory", "maxBytes", "requiredForReadiness", "memoBytes", "sendFromFiles", "warmBytes"])
        let maxBytes = try object.integer("maxBytes", in: 0...Int.max, default: 268_435_456)
        let sendsFromFiles = try object.bool("sendFromFiles", default: false)
        return CacheConfig(directory: try object.nonEmptyString("directory", default: ".pageproxy-cache"),
                           maxBytes: maxBytes,
                           requiredForReadiness: try object.bool("requiredForReadiness", default: true),
                           memoBytes: object["memoBytes"] == nil ? nil : try object.integer("memoBytes", in: 0...Int.max, default: 0),
                           sendsFromFiles: sendsFromFiles,
                           warmBytes: try object.integer(
                               "warmBytes", in: 0...Int.max,
                               default: CacheConfig.defaultWarmBytes(maxBytes: maxBytes, sendsFromFiles: sendsFromFiles)))
    }

    private static func serverConfig(_ object: ConfigObject?) throws(ConfigError) -> ServerConfig {
        let defaults = ServerConfig(maxConnections: 1024, headerTimeout: .seconds(10), idleTimeout: .seconds(60),
                                    shutdownGrace: .seconds(10), maxRequestLineBytes: 8192, maxHeaderBytes: 32768)
        guard let object else { return defaults }
        try object.requireOnly(["maxConnections", "headerTimeoutSeconds", "idleTimeoutSeconds", "shutdownGraceSeconds",
                                "drainDelaySeconds", "maxRequestLineBytes", "maxHeaderBytes", "sendBufferBytes",
                                "writeTimeoutSeconds"])
        return ServerConfig(
            maxConnections: try object.integer("maxConnections", in: 1...100_000, default: 1024),
            headerTimeout: try object.seconds("headerTimeoutSeconds", in: 1...3600, default: 10),
            idleTimeout: try object.seconds("idleTimeoutSeconds", in: 1...3600, default: 60),
            shutdownGrace: try object.seconds("shutdownGraceSeconds", in: 0...3600, default: 10),
            maxRequestLineBytes: try object.integer("maxRequestLineBytes", in: 256...1_048_576, default: 8192),
            maxHeaderBytes: try object.integer("maxHeaderBytes", in: 1024...1_048_576, default: 32768),
            sendBufferBytes: try object.integer("sendBufferBytes", in: 0...67_108_864, default: 262_144),
            writeTimeout: try object.seconds("writeTimeoutSeconds", in: 1...3600, default: 30),
            drainDelay: try object.seconds("drainDelaySeconds", in: 0...3600, default: 5))
    }

    private static func logLevel(_ root: ConfigObject) throws(ConfigError) -> LogLevel {
        let text = try root.string("logLevel", default: "info")
        guard let level = LogLevel(rawValue: text) else {
            let names = LogLevel.allCases.map(\.rawValue)
            var problem = "unknown log level \"\(text)\""
            if let suggestion = ConfigObject.closest(to: text, in: names) { problem += " (did you mean \"\(suggestion)\"?)" }
            throw root.error("logLevel", problem + "; expected one of \(names.joined(separator: ", "))")
        }
        return level
    }

    private static func mockConfig(_ object: ConfigObject?) throws(ConfigError) -> MockConfig? {
        guard let object else { return nil }
        try object.requireOnly(["address", "port", "items", "pageSize", "latencyMs"])
        return MockConfig(
            address: try address(object, default: "127.0.0.1"),
            port: try object.integer("port", in: 0...65535, default: 8081),
            items: try object.integer("items", in: 0...10_000_000, default: 250),
            pageSize: try object.integer("pageSize", in: 1...10_000, default: 20),
            latency: .milliseconds(try object.integer("latencyMs", in: 0...600_000, default: 0)))
    }

    private static func routeConfigs(
        _ root: ConfigObject, environment: [String: String], warnings: ConfigWarnings
    ) throws(ConfigError) -> [RouteConfig] {
        guard let elements = try root.array("routes") else {
            throw root.error("routes", "is required: an array of at least one route")
        }
        guard !elements.isEmpty else { throw root.error("routes", "must contain at least one route") }
        var routes: [RouteConfig] = []
        routes.reserveCapacity(elements.count)
        // Each name's first index, looked up in constant time: a scan of the earlier routes made 100,000 routes take
        // 159 s to check (attack13 U1).
        var indexByName: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            let object = try ConfigObject(element, path: "routes[\(index)]", file: root.file)
            let route = try RouteConfigParser.parse(object, environment: environment, warnings: warnings)
            if let earlier = indexByName[route.name] {
                throw object.error("name", "duplicate route name \"\(route.name)\": routes[\(earlier)] and routes[\(index)] "
                    + "are both named so")
            }
            indexByName[route.name] = index
            routes.append(route)
        }
        return routes
    }

    // MARK: Helpers

    /// A port number from the environment variable `name`, nil when it is not set.
    private static func port(_ environment: [String: String], _ name: String, file: String) throws(ConfigError) -> Int? {
        guard let text = environment[name] else { return nil }
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(text),
            (0...65535).contains(port)
        else {
            throw ConfigError(file: file, field: "$" + name, problem: "expected a port number 0...65535, found \"\(text)\"")
        }
        return port
    }

    private static func address(_ object: ConfigObject, default fallback: String) throws(ConfigError) -> String {
        let text = try object.string("address", default: fallback)
        guard isIPv4(text) else {
            throw object.error("address", "expected an IPv4 address such as 127.0.0.1 or 0.0.0.0, found \"\(text)\"")
        }
        return text
    }

    static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    private struct ReadFailure: Error {
        var message: String
    }

    private static func readFile(_ path: String) -> Result<[UInt8], ReadFailure> {
        // Opened without waiting: a FIFO with no writer blocked open(2) for ever (attack16 U1); its reads then wait for
        // data as a file's would, and end at once with no writer ("the file is empty").
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(ReadFailure(message: String(cString: strerror(errno)))) }
        defer { close(descriptor) }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        // A directory opens; say what it is rather than what read(2) leaves (attack11 U1: "No such file or directory").
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            return .failure(ReadFailure(message: "it is a directory; name the config file in it"))
        }
        var contents: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            // errno read inside the closure, before anything else can change it.
            let (count, error) = buffer.withUnsafeMutableBytes { (read(descriptor, $0.baseAddress, $0.count), errno) }
            // A FIFO with no writer, a device: not "the file is empty" (retest16). A pipe that gives bytes is read (a
            // shell's `<(…)`).
            if count == 0, contents.isEmpty, status.st_mode & S_IFMT != S_IFREG {
                return .failure(ReadFailure(message: "it is not a regular file (a FIFO with no writer, or a device), and gave nothing to read"))
            }
            if count == 0 { return .success(contents) }
            if count < 0 {
                if error == EINTR { continue }
                return .failure(ReadFailure(message: String(cString: strerror(error))))
            }
            contents += buffer[0..<count]
            if contents.count > 64 * 1024 * 1024 {
                return .failure(ReadFailure(message: "larger than 64 MiB"))
            }
        }
    }
}

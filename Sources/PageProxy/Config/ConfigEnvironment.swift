/// The environment variables that override `config.json` (DESIGN.md "Operation": the listen address, port and
/// cache directory), and the built-in mock's port, so that a second copy of a config with a `mock` section can run.
enum ConfigEnvironment {
    /// Applies every variable set in `environment` to `config`; a bad value is an error that names the variable.
    static func apply(_ environment: [String: String], to config: inout Config, file: String) throws(ConfigError) {
        if let address = environment["PAGEPROXY_ADDRESS"] {
            guard ConfigLoader.isIPv4(address) else {
                throw ConfigError(file: file, field: "$PAGEPROXY_ADDRESS",
                                  problem: "expected an IPv4 address such as 127.0.0.1 or 0.0.0.0, found \"\(address)\"")
            }
            config.listen.address = address
        }
        if let text = environment["PAGEPROXY_PORT"] {
            config.listen.port = try port(text, in: 0...65535, variable: "PAGEPROXY_PORT", file: file)
        }
        if let directory = environment["PAGEPROXY_CACHE_DIR"] {
            guard !directory.isEmpty else {
                throw ConfigError(file: file, field: "$PAGEPROXY_CACHE_DIR", problem: "must not be empty")
            }
            config.cache.directory = directory
        }
        if let text = environment["PAGEPROXY_MOCK_PORT"] {
            let port = try port(text, in: 1...65535, variable: "PAGEPROXY_MOCK_PORT", file: file)
            moveMock(of: &config, to: port)
        }
    }

    private static func port(_ text: String, in range: ClosedRange<Int>, variable: String, file: String) throws(ConfigError) -> Int {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(text), range.contains(port)
        else {
            throw ConfigError(
                file: file, field: "$" + variable, problem: "expected a port number \(range.lowerBound)...\(range.upperBound), found \"\(text)\"")
        }
        return port
    }

    /// Moves the built-in mock to `port`, and with it every route whose upstream is the mock's `http://` address and
    /// port in the file (`127.0.0.1` for a mock on `0.0.0.0`): the shipped routes follow their mock. Without a `mock`
    /// section there is nothing to move.
    private static func moveMock(of config: inout Config, to port: Int) {
        guard let mock = config.mock else { return }
        let hosts: Set<String> = mock.address == "0.0.0.0" ? ["0.0.0.0", "127.0.0.1"] : [mock.address]
        for index in config.routes.indices {
            var upstream = config.routes[index].upstream
            guard upstream.scheme == "http", hosts.contains(upstream.host), upstream.port == mock.port else { continue }
            upstream.port = port
            upstream.text = "http://\(upstream.host):\(port)\(upstream.path)" + (upstream.query.map { "?" + $0 } ?? "")
            config.routes[index].upstream = upstream
        }
        config.mock?.port = port
    }
}

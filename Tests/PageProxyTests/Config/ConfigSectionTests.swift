@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer
import Testing

/// The top-level sections: listen, cache, server, logLevel, mock, routes, and unknown keys anywhere.
@Suite struct ConfigSectionTests {
    private func expectTop(_ top: String, field: String, mentions: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        ConfigFixture.expectError(ConfigFixture.document(top: top), field: field, mentions: mentions,
                                  sourceLocation: sourceLocation)
    }

    @Test(arguments: ["localhost", "::1", "1.2.3", "1.2.3.4.5", "", "300.1.1.1"])
    func listenAddressMustBeIPv4(address: String) {
        expectTop(#""listen": { "address": "\#(address)" }"#, field: "listen.address", mentions: ["IPv4", "\"\(address)\""])
    }

    @Test func listenPortRange() throws {
        expectTop(#""listen": { "port": 65536 }"#, field: "listen.port", mentions: ["0...65535", "65536"])
        expectTop(#""listen": { "port": -1 }"#, field: "listen.port", mentions: ["0...65535", "-1"])
        #expect(try ConfigFixture.parse(ConfigFixture.document(top: #""listen": { "port": 0 }"#)).listen.port == 0)
        #expect(try ConfigFixture.parse(ConfigFixture.document(top: #""listen": { "port": 65535 }"#)).listen.port == 65535)
    }

    @Test func cacheRules() throws {
        expectTop(#""cache": { "directory": "" }"#, field: "cache.directory", mentions: ["empty"])
        expectTop(#""cache": { "maxBytes": -1 }"#, field: "cache.maxBytes", mentions: ["≥ 0", "-1"])
        #expect(try ConfigFixture.parse(ConfigFixture.document(top: #""cache": { "maxBytes": 0 }"#)).cache.maxBytes == 0)
        #expect(try ConfigFixture.parse(ConfigFixture.document(top: #""cache": { "maxBytes": 0 }"#)).cache.requiredForReadiness)
        #expect(try !ConfigFixture.parse(ConfigFixture.document(top: #""cache": { "requiredForReadiness": false }"#)).cache.requiredForReadiness)
        expectTop(#""cache": { "requiredForReadiness": "no" }"#, field: "cache.requiredForReadiness", mentions: ["true or false"])
        #expect(try ConfigFixture.parse(ConfigFixture.document(top: #""cache": { "maxBytes": 800 }"#)).cache.memoLimit == 100)
        #expect(try ConfigFixture.parse(ConfigFixture.document(top: #""cache": { "memoBytes": 0 }"#)).cache.memoLimit == 0)
        expectTop(#""cache": { "memoBytes": -1 }"#, field: "cache.memoBytes", mentions: ["≥ 0", "-1"])
    }

    @Test(arguments: [
        ("maxConnections", 0, "1...100000"), ("maxConnections", 100_001, "1...100000"),
        ("headerTimeoutSeconds", 0, "1...3600"), ("headerTimeoutSeconds", 3601, "1...3600"),
        ("idleTimeoutSeconds", 0, "1...3600"), ("shutdownGraceSeconds", -1, "0...3600"),
        ("shutdownGraceSeconds", 3601, "0...3600"), ("drainDelaySeconds", -1, "0...3600"), ("drainDelaySeconds", 3601, "0...3600"),
        ("maxRequestLineBytes", 255, "256...1048576"), ("maxRequestLineBytes", 1_048_577, "256...1048576"),
        ("maxHeaderBytes", 1023, "1024...1048576"), ("maxHeaderBytes", 1_048_577, "1024...1048576"),
        ("sendBufferBytes", -1, "0...67108864"), ("sendBufferBytes", 67_108_865, "0...67108864"),
    ])
    func serverLimits(key: String, value: Int, range: String) {
        expectTop(#""server": { "\#(key)": \#(value) }"#, field: "server.\(key)", mentions: [range, String(value)])
    }

    @Test func logLevels() throws {
        for level in LogLevel.allCases {
            let config = try ConfigFixture.parse(ConfigFixture.document(top: #""logLevel": "\#(level.rawValue)""#))
            #expect(config.logLevel == level)
        }
        expectTop(#""logLevel": "verbose""#, field: "logLevel", mentions: ["\"verbose\"", "debug, info, warning, error"])
        expectTop(#""logLevel": "warn""#, field: "logLevel", mentions: ["did you mean \"warning\""])
        #expect(LogLevel.debug < .info && LogLevel.info < .warning && LogLevel.warning < .error)
    }

    @Test(arguments: [
        ("address", "\"example.com\"", "IPv4"), ("port", "70000", "0...65535"),
        ("items", "-1", "0...10000000"), ("items", "10000001", "0...10000000"),
        ("pageSize", "0", "1...10000"), ("pageSize", "10001", "1...10000"),
        ("latencyMs", "-5", "0...600000"), ("latencyMs", "600001", "0...600000"),
    ])
    func mockRules(key: String, value: String, mention: String) {
        expectTop(#""mock": { "\#(key)": \#(value) }"#, field: "mock.\(key)", mentions: [mention])
    }

    @Test func sectionMustBeAnObject() {
        expectTop(#""server": 5"#, field: "server", mentions: ["expected an object", "an integer"])
    }

    @Test func routesAreRequiredAndNonEmpty() {
        ConfigFixture.expectError("{}", field: "routes", mentions: ["required"])
        ConfigFixture.expectError(#"{ "routes": [] }"#, field: "routes", mentions: ["at least one"])
        ConfigFixture.expectError(#"{ "routes": {} }"#, field: "routes", mentions: ["expected an array"])
        ConfigFixture.expectError(#"{ "routes": [5] }"#, field: "routes[0]", mentions: ["expected an object"])
    }

    // MARK: Unknown keys

    @Test func unknownTopLevelKeySuggestsAndListsAllowed() {
        let error = expectTopError(#""listn": {}"#, field: "listn")
        #expect(error?.problem.contains("unknown key \"listn\"") == true)
        #expect(error?.problem.contains("did you mean \"listen\"?") == true)
        #expect(error?.problem.contains("listen, cache, server, logLevel, mock, routes") == true)
    }

    @Test func unknownKeyInEachSection() {
        ConfigFixture.expectError(ConfigFixture.document(top: #""listen": { "prot": 1 }"#), field: "listen.prot",
                                  mentions: ["did you mean \"port\"", "address, port"])
        ConfigFixture.expectError(ConfigFixture.document(top: #""cache": { "dir": "x" }"#), field: "cache.dir",
                                  mentions: ["unknown key", "directory, maxBytes"])
        ConfigFixture.expectError(ConfigFixture.document(top: #""server": { "maxconnections": 1 }"#),
                                  field: "server.maxconnections", mentions: ["did you mean \"maxConnections\""])
        ConfigFixture.expectError(ConfigFixture.document(top: #""mock": { "latency": 1 }"#), field: "mock.latency",
                                  mentions: ["did you mean \"latencyMs\""])
        ConfigFixture.expectRouteError(extra: #""concurency": 2"#, field: "concurency",
                                       mentions: ["did you mean \"concurrency\""])
        ConfigFixture.expectPaginationError(#"{ "scheme": "link-header", "pagesize": 5 }"#, field: "pagesize",
                                            mentions: ["did you mean \"pageSize\""])
    }

    @Test func farOffUnknownKeyHasNoSuggestion() {
        let error = expectTopError(#""zzzzzzzz": 1"#, field: "zzzzzzzz")
        #expect(error?.problem.contains("did you mean") == false)
        #expect(error?.problem.contains("Allowed keys") == true)
    }

    @Test func suggestions() {
        #expect(ConfigObject.editDistance("prot", "port") == 1)
        #expect(ConfigObject.editDistance("kitten", "sitting") == 3)
        #expect(ConfigObject.closest(to: "maxPage", in: RouteConfigParser.keys) == "maxPages")
        #expect(ConfigObject.closest(to: "TTLSECONDS", in: RouteConfigParser.keys) == "ttlSeconds")
        #expect(ConfigObject.closest(to: "warn", in: ["debug", "info", "warning", "error"]) == "warning")
        #expect(ConfigObject.closest(to: "xyz", in: RouteConfigParser.keys) == nil)
    }

    @discardableResult
    private func expectTopError(_ top: String, field: String, sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
        ConfigFixture.expectError(ConfigFixture.document(top: top), field: field, sourceLocation: sourceLocation)
    }
}

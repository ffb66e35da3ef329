import Testing

@testable import PageProxy

/// review24 P1: `healthcheck` asks where `serve` listens when the environment moved it (the image sets
/// `PAGEPROXY_PORT`; `docker run -e PAGEPROXY_PORT=9000` used to leave the HEALTHCHECK asking 8080).
@Suite struct HealthcheckTargetTests {
    private func target(_ arguments: [String], _ environment: [String: String]) throws -> (address: String, port: Int) {
        try HealthcheckCommand.target(try CommandOptions(arguments, known: ["port", "address"]), environment: environment)
    }

    @Test("no options: the environment's port, the wildcard address asked on the loopback; nothing set: 127.0.0.1:8080")
    func theEnvironmentGivesTheDefaults() throws {
        let moved = try target([], ["PAGEPROXY_PORT": "9000", "PAGEPROXY_ADDRESS": "0.0.0.0"])
        #expect(moved.address == "127.0.0.1" && moved.port == 9000)
        let own = try target([], ["PAGEPROXY_ADDRESS": "10.1.2.3"])
        #expect(own.address == "10.1.2.3" && own.port == 8080)
        let none = try target([], [:])
        #expect(none.address == "127.0.0.1" && none.port == 8080)
    }

    @Test("--port and --address win over the environment")
    func optionsWin() throws {
        let given = try target(["--port", "18000", "--address", "127.0.0.2"], ["PAGEPROXY_PORT": "9000", "PAGEPROXY_ADDRESS": "10.1.2.3"])
        #expect(given.address == "127.0.0.2" && given.port == 18000)
    }

    @Test("a PAGEPROXY_PORT healthcheck cannot ask (0, a word) is a usage error naming it", arguments: ["0", "http", "70000"])
    func aBadEnvironmentPortIsAUsageError(text: String) {
        #expect {
            _ = try target([], ["PAGEPROXY_PORT": text])
        } throws: { error in
            (error as? CommandOptions.UsageError)?.message.contains("PAGEPROXY_PORT") == true
        }
    }
}

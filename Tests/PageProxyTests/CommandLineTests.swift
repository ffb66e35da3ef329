import Foundation
import PageProxyCore
import Testing

/// The executable's command line as a user meets it: help, version, config checks and exit codes.
@Suite struct CommandLineTests {
    private func run(_ arguments: [String]) async throws -> CommandOutcome {
        try await runPageProxy(arguments)
    }

    private var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    @Test("--help after any command prints the usage and exits 0", arguments: [["--help"], ["serve", "--help"], ["mock", "-h"]])
    func helpPrintsUsage(arguments: [String]) async throws {
        let outcome = try await run(arguments)
        #expect(outcome.status == 0)
        #expect(outcome.output.contains("Usage:"))
        #expect(outcome.output.contains("check-config"))
    }

    @Test func versionPrintsTheVersion() async throws {
        let outcome = try await run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.output.hasPrefix("PageProxy "))
    }

    @Test("an unknown command exits 2 and says which")
    func unknownCommandExits2() async throws {
        let outcome = try await run(["serv"])
        #expect(outcome.status == 2)
        #expect(outcome.errors.contains("unknown command \"serv\""))
    }

    @Test("options without a command are serve's: PageProxy --config PATH serves that file (here: names the missing one)")
    func optionsWithoutCommandAreServe() async throws {
        let outcome = try await run(["--config", "/nonexistent/typo.json"])
        #expect(outcome.status == 1, "\(outcome.errors)")
        #expect(!outcome.errors.contains("unknown command"))
        #expect(outcome.errors.contains("/nonexistent/typo.json"))
    }

    @Test("check-config accepts the shipped config.json")
    func shippedConfigIsValid() async throws {
        let outcome = try await run(["check-config", repository.appendingPathComponent("config.json").path])
        #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
    }

    @Test("check-config takes the file as --config PATH too, as serve does")
    func checkConfigAcceptsConfigOption() async throws {
        let path = repository.appendingPathComponent("config.json").path
        let outcome = try await run(["check-config", "--config", path])
        #expect(outcome.status == 0, "\(outcome.output)\(outcome.errors)")
        #expect(outcome.output.hasPrefix("\(path): OK"))
        let missing = try await run(["check-config", "--config", "/nonexistent/typo.json"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("/nonexistent/typo.json"))
    }

    @Test("check-config fails on what serve only warns of: endStatuses 500 (review19 R5)")
    func checkConfigFailsOnAWarning() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("loose15-endstatuses-\(getpid()).json").path
        let routes = #"[{"name": "r", "upstream": "http://127.0.0.1:1/items", "pagination": {"scheme": "offset", "endStatuses": [404, 500]}}]"#
        try Data(#"{"routes": \#(routes)}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let outcome = try await run(["check-config", path])
        #expect(outcome.status == 1, "\(outcome.output)\(outcome.errors)")
        #expect(outcome.errors.contains("endStatuses: 500 ignored"), "\(outcome.errors)")
        #expect(!outcome.output.contains(": OK"))
    }

    /// attack12 U1: `check-config good.json missing.json` checked only the first file and said OK (exit 0). Now
    /// every path is checked and named, and one that fails makes the exit 1; `serve` refuses a second path (exit 2).
    @Test func checkConfigChecksEveryPathGiven() async throws {
        let good = repository.appendingPathComponent("config.json").path
        let both = try await run(["check-config", good, "/nonexistent/second.json"])
        #expect(both.status == 1, "\(both.output)\(both.errors)")
        #expect(both.output.contains("\(good): OK"))
        #expect(both.errors.contains("/nonexistent/second.json"))
        let first = try await run(["check-config", "--config", "/nonexistent/first.json", good])
        #expect(first.status == 1 && first.errors.contains("/nonexistent/first.json") && first.output.contains("\(good): OK"))
        let twice = try await run(["check-config", good, good])
        #expect(twice.status == 0 && twice.output.components(separatedBy: ": OK").count == 3, "\(twice.output)")
        let serve = try await run(["serve", good, "/nonexistent/second.json"])
        #expect(serve.status == 2 && serve.errors.contains("\"/nonexistent/second.json\" is a second one"), "\(serve.errors)")
    }

    /// attack11 U1: a directory given as the config file is named as one (it said "No such file or directory").
    @Test func checkConfigOnADirectorySaysItIsOne() async throws {
        let directory = FileManager.default.temporaryDirectory.path
        let outcome = try await run(["check-config", directory])
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("\(directory): cannot read the file: it is a directory"), "\(outcome.errors)")
    }

    /// attack11 U2: an enabled cache whose directory is a file (or has a file along its path) fails check-config; the
    /// server would run uncached with `/readyz` 503. A directory not there yet, or a disabled cache, passes.
    @Test func checkConfigRefusesACacheDirectoryThatIsAFile() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-cachefile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let plainFile = scratch.appendingPathComponent("plain").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: plainFile))
        func check(_ directory: String, maxBytes: Int = 1_000_000) async throws -> CommandOutcome {
            let config = scratch.appendingPathComponent("config-\(UUID().uuidString).json")
            try Data(#"{"cache":{"directory":"\#(directory)","maxBytes":\#(maxBytes)},"routes":[{"name":"a","upstream":"http://127.0.0.1:1/","pagination":{"scheme":"page-number"}}]}"#.utf8)
                .write(to: config)
            return try await run(["check-config", config.path])
        }
        let file = try await check(plainFile)
        #expect(file.status == 1)
        #expect(file.errors.contains("cache.directory: \"\(plainFile)\" is a file, not a directory"), "\(file.errors)")
        let under = try await check(plainFile + "/cache")
        #expect(under.status == 1)
        #expect(under.errors.contains("has a file, not a directory, along its path"), "\(under.errors)")
        #expect(try await check(scratch.appendingPathComponent("not-yet").path).status == 0)
        #expect(try await check(scratch.path).status == 0)
        #expect(try await check(plainFile, maxBytes: 0).status == 0)
    }

    @Test("--help says that PageProxy with no command runs serve, and names PAGEPROXY_MOCK_PORT")
    func helpSaysNoArgumentsMeansServe() async throws {
        let outcome = try await run(["--help"])
        #expect(outcome.output.contains("PageProxy alone, or with only serve's options, runs serve"))
        #expect(outcome.output.contains("PAGEPROXY_MOCK_PORT"))
    }

    @Test("check-config names the field that is wrong and exits non-zero")
    func badConfigNamesTheField() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-bad-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"routes":[{"name":"a","upstream":"http://127.0.0.1:1/","pagination":{"scheme":"page-number"},"concurrency":0}]}"#.utf8)
            .write(to: file)
        let outcome = try await run(["check-config", file.path])
        #expect(outcome.status != 0)
        #expect((outcome.output + outcome.errors).contains("concurrency"))
    }

    @Test("start-up and usage errors say what to do")
    func errorsSayWhatToDo() async throws {
        let missing = try await run(["serve", "--config", "/nonexistent/config.json"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("--config PATH"))
        let unknown = try await run(["serve", "--port", "9"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("PageProxy --help"))

        // A port that another process holds.
        let holder = try Socket.makeListening(on: SocketAddress(host: "127.0.0.1", port: 0))
        defer { holder.close() }
        let port = try #require(holder.localPort())
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-busy-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"listen":{"address":"127.0.0.1","port":\#(port)},"cache":{"maxBytes":0},"routes":[{"name":"a","upstream":"http://127.0.0.1:1/","pagination":{"scheme":"page-number"}}]}"#.utf8)
            .write(to: file)
        let busy = try await run(["serve", "--config", file.path])
        #expect(busy.status == 1)
        #expect(busy.errors.contains("Address already in use"))
        #expect(busy.errors.contains("choose another port"))
    }
}

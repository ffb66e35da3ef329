import CLinux
import Foundation
import PageProxyCore
import PageProxyMock
#if canImport(Glibc)
import Glibc
#endif

/// The executable's entry point: `serve`, `mock`, `check-config`, `healthcheck`, `probe`, `fetch`, `--help`, `--version`.
@main
enum PageProxyCommand {
    static let usage = """
        PageProxy \(PageProxyVersion.current): a paginating, aggregating HTTP proxy.

        Usage:
          PageProxy serve [--config PATH]        run the proxy (default config: ./config.json);
                                                 PageProxy alone, or with only serve's options, runs serve
          PageProxy check-config [--config] PATH...
                                                 validate each config file, exit 0 if all are valid (like nginx -t)
          PageProxy mock [options]               run only the mock paginated upstream
              --address A   (127.0.0.1)   --port P (8081)   --items N (250)
              --page-size N (20)          --latency-ms N (0)   --close-connections 0|1 (0: keep-alive)
          PageProxy healthcheck [--port P] [--address A]
                                                 GET /healthz (container HEALTHCHECK); by default where
                                                 PAGEPROXY_PORT and PAGEPROXY_ADDRESS say, else 127.0.0.1:8080
          PageProxy probe URL [--header 'N: v']  fetch a first page, say how it paginates, print a route
              [--more-path PATH]                   and whether the page holds a flag at a route's morePath
          PageProxy fetch ROUTE[/path][?query]   walk a route without a server; items to stdout (or --output FILE)
              [--config PATH] [--format json|ndjson] [--output FILE]   (--output -: stdout; a --format that
              differs from the query's _format is a usage error)
              a progress line on stderr when it is a terminal; starts the config's mock if its port is free
              exit 0 done, 1 config or output error, 2 usage, 3 upstream error (nothing written),
              4 bad request (unknown route, bad control or path), 5 partial (the walk failed mid-stream),
              141 the output's reader left (fetch ... | head), quietly, as a shell reports a SIGPIPE
          PageProxy --help | --version

        Environment: PAGEPROXY_ADDRESS, PAGEPROXY_PORT, PAGEPROXY_CACHE_DIR and PAGEPROXY_MOCK_PORT (the built-in
        mock's port) override the config file; PAGEPROXY_HUGE_PAGES=auto|on|off (auto) advises huge pages for
        the heaps cache entries are read into.
        """

    /// The flags that stand alone, without a command.
    private static let globalFlags: Set<String> = ["--help", "-h", "--version", "-V"]

    static func main() async {
        // Before any thread exists (issue 13, seventh pass: the first read-back grew its arenas a page run at a time).
        _ = pageproxy_pad_malloc_arenas()
        // A write to a closed socket or pipe must be an error, not the end of the process: first, before any message
        // (`DescriptorOutput`; review14 F4).
        signal(SIGPIPE, SIG_IGN)
        var arguments = Array(CommandLine.arguments.dropFirst())
        // No command, or options without one (`PageProxy --config x.json`), is serve: the options are serve's.
        let startsWithOption = arguments.first.map { $0.hasPrefix("-") && !Self.globalFlags.contains($0) } ?? true
        let command = startsWithOption ? "serve" : arguments.removeFirst()
        let asksForHelp = arguments.contains("--help") || arguments.contains("-h")
            || ["--help", "-h", "help", "--version", "-V", "version"].contains(command)
        switch HugePagePolicy.from(environment: ProcessInfo.processInfo.environment) {
        case .success(let policy): policy.apply()
        // Help and the version are printed whatever the environment says (review13 N6).
        case .failure where asksForHelp: break
        case .failure(let invalid):
            printError("PageProxy: \(invalid.message)")
            exit(1)
        }
        // Also before any thread: the heap serve warms must be the one every thread allocates from (serve only).
        if command == "serve" { WarmHeap.keepOneArena() }
        // A soft limit of 1,024 would leave a quarter of it, 256, for entry files sent from the cache (eighth pass).
        OpenFileLimit.raiseToHardLimit()
        // And its table grown once, before any request (each growth later waits for an RCU grace period).
        OpenFileLimit.growDescriptorTable()
        let code: Int32
        if arguments.contains("--help") || arguments.contains("-h") {
            // `PageProxy serve --help` is how most people look for options.
            print(usage)
            exit(0)
        }
        switch command {
        case "serve": code = await ServeCommand.run(arguments)
        case "mock": code = await MockCommand.run(arguments)
        case "check-config": code = CheckConfigCommand.run(arguments)
        case "healthcheck": code = await HealthcheckCommand.run(arguments)
        case "probe": code = await ProbeCommand.run(arguments)
        case "fetch": code = await FetchCommand.run(arguments)
        case "--help", "-h", "help":
            print(usage)
            code = 0
        case "--version", "-V", "version":
            if let extra = arguments.first {
                // attack13 U1: an argument after --version was ignored without a word.
                printError("PageProxy: \(command) takes no arguments; \"\(extra)\" is extra\n\n\(usage)")
                code = 2
            } else {
                print("PageProxy \(PageProxyVersion.current)")
                code = 0
            }
        default:
            printError("PageProxy: unknown command \"\(command)\"\n\n\(usage)")
            code = 2
        }
        exit(code)
    }
}

/// Reads `--name value` options from a command line.
struct CommandOptions {
    private(set) var values: [String: String] = [:]
    private(set) var positional: [String] = []

    init(_ arguments: [String], known: Set<String>) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                var name = String(argument.dropFirst(2))
                var value: String?
                if let equals = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                guard known.contains(name) else { throw UsageError(message: "unknown option --\(name); `PageProxy --help` lists the options") }
                if value == nil {
                    index += 1
                    guard index < arguments.count else { throw UsageError(message: "--\(name) needs a value") }
                    value = arguments[index]
                }
                // attack13 U1: a second `--format` silently won over the first.
                guard values[name] == nil else { throw UsageError(message: "--\(name) is given twice; give it once") }
                values[name] = value
            } else {
                positional.append(argument)
            }
            index += 1
        }
    }

    /// The config file a command reads: `--config PATH`, else its plain argument, else `./config.json`.
    /// - Throws: `UsageError` for a second path (attack12 U1: it was ignored without a word).
    static func configPath(_ arguments: [String]) throws(UsageError) -> String {
        let paths = try configPaths(arguments)
        guard paths.count <= 1 else {
            throw UsageError(message: "one config file only; \"\(paths[1])\" is a second one")
        }
        return paths.first ?? "config.json"
    }

    /// Every config file named: `--config PATH` first, then the plain arguments (none: `[]`).
    static func configPaths(_ arguments: [String]) throws(UsageError) -> [String] {
        let options = try CommandOptions(arguments, known: ["config"])
        return (options.values["config"].map { [$0] } ?? []) + options.positional
    }

    func integer(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError(message: "--\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound), not \"\(text)\"")
        }
        return value
    }

    struct UsageError: Error {
        let message: String
    }
}

/// Writes a message to standard error; one that cannot be written is dropped (`DescriptorOutput`: FileHandle would
/// stop the process).
func printError(_ message: String) {
    DescriptorOutput.write(message + "\n", to: STDERR_FILENO)
}

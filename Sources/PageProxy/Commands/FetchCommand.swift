import Foundation
import PageProxyCore
import PageProxyServer
#if canImport(Glibc)
import Glibc
#endif

/// `PageProxy fetch ROUTE[/path][?query] [--config PATH] [--format json|ndjson] [--output FILE]`: walks a route of
/// the config without a server, through the same responder, walk and page cache a served request uses
/// (`InProcessExchange`), and writes the merged JSON or the NDJSON items to standard output (or FILE; `-` is
/// standard output).
///
/// Standard output carries the items only; errors go to standard error, and so does a progress line when standard
/// error is a terminal. The exit status tells a script what happened (`FetchExit`).
enum FetchCommand {
    static let usage = "usage: PageProxy fetch ROUTE[/path][?query] [--config PATH] [--format json|ndjson] [--output FILE]"

    static func run(_ arguments: [String]) async -> Int32 {
        let options: CommandOptions
        do {
            options = try CommandOptions(arguments, known: ["config", "format", "output"])
        } catch {
            return fail(.usage, error.message)
        }
        if options.positional.count > 1 {
            return fail(.usage, "one route only; \"\(options.positional[1])\" is an extra argument")
        }
        guard let target = options.positional.first, !target.isEmpty else {
            return fail(.usage, "name one route, like demo or demo/sub?state=open")
        }
        var headers = HTTPHeaders()
        headers.set("Host", "localhost")
        let path = target.hasPrefix("/") ? target : "/" + target
        if let format = options.values["format"] {
            guard let flag = OutputFormat(rawValue: format) else { return fail(.usage, "--format must be json or ndjson, not \"\(format)\"") }
            // The query would win over the header form silently (attack12 U5): two formats asked for is a usage error.
            if let queried = queryFormat(path), queried.format != flag {
                return fail(.usage, "--format \(format) and the query's \(queried.written) ask for different formats; give one")
            }
            headers.set("PageProxy-Format", format)
        }
        let config: Config
        do {
            config = try ConfigLoader.load(path: options.values["config"] ?? "config.json", environment: ProcessInfo.processInfo.environment)
        } catch {
            return fail(.failed, error.description)
        }
        // Standard output is for the items: the log goes to standard error, warnings and errors only.
        let logger = Logger(level: .warning) { line in DescriptorOutput.write(line, to: STDERR_FILENO) }
        config.logWarnings(to: logger)
        let mock = startMockIfFree(config, logger: logger)
        let progress = FetchProgressLine(enabled: isatty(STDERR_FILENO) == 1)
        let pages = PageProxyApp.makePageCache(config.cache, logger: logger)
        let transport = HTTP1Transport(pool: ConnectionPool(onUnsolicited: PageProxyApp.unsolicitedBytesWarning(logger: logger)))
        let budgets = PageProxyApp.makeBudgets(config)
        let responder = PageProxyApp.makeResponder(
            config: config, transport: transport, pages: pages, status: ServiceStatus(), metrics: Metrics(budgets: budgets), budgets: budgets,
            spool: nil, walkObserver: { progress.update($0) }, morePathWarnings: MorePathWarnings(logger: logger))
        let request = HTTPRequestHead(method: .get, target: path, version: .http1_0, headers: headers)
        let exit: FetchExit
        do {
            let exchange = try InProcessExchange.start(request, responder: responder)
            // `-` is standard output, as for curl and wget (attack12 U5: it made a file named `-`); `./-` is that file.
            let output = options.values["output"].flatMap { $0 == "-" ? nil : $0 }
            exit = await FetchAnswerReader(socket: exchange.answer, outputPath: output).copy()
            exchange.answer.close()
            await exchange.responding.value
        } catch {
            exit = .failed
            printError("PageProxy fetch: \(error)")
        }
        progress.finish()
        await mock?.stop(grace: .zero)
        transport.pool.closeAll()
        return exit.rawValue
    }

    /// The format the target's own query names (`_format=ndjson`) and how it was written; nil when it names none or
    /// its controls are wrong (the walk's 400 then says how).
    private static func queryFormat(_ path: String) -> (format: OutputFormat, written: String)? {
        let request = HTTPRequestHead(method: .get, target: path, version: .http1_0, headers: HTTPHeaders())
        guard let pair = (request.query ?? "").split(separator: "&").first(where: { $0 == "_format" || $0.hasPrefix("_format=") }),
            let controls = try? ProxyControls.parse(request)
        else { return nil }
        return (controls.format, String(pair))
    }

    /// The config's built-in mock, started here when its port is free; when it is taken (a running `PageProxy serve`
    /// has it), the routes reach that one.
    private static func startMockIfFree(_ config: Config, logger: Logger) -> Server? {
        guard let mock = config.mock else { return nil }
        return try? PageProxyApp.startMock(mock, logger: logger)
    }

    private static func fail(_ exit: FetchExit, _ message: String) -> Int32 {
        printError("PageProxy fetch: \(message)" + (exit == .usage ? "\n\(usage)" : ""))
        return exit.rawValue
    }
}

/// `PageProxy fetch`'s exit statuses, for scripts (README "PageProxy fetch", `--help`).
enum FetchExit: Int32 {
    /// Every item was written.
    case ok = 0
    /// The config could not be loaded, or the output could not be written.
    case failed = 1
    /// The command line is wrong.
    case usage = 2
    /// The upstream failed (a page's error status, a timeout, bad JSON): nothing was written.
    case upstream = 3
    /// PageProxy refused the request: an unknown route, a bad control or path (a 400 or 404 of its own).
    case badRequest = 4
    /// The walk failed after items were written (NDJSON): the output is incomplete.
    case partial = 5
    /// The output's reader left (`fetch … | head`): it wanted no more, which is no error worth a message. The status
    /// a shell gives a producer that SIGPIPE ended (128 + 13), as `cat` or `yes` would get in that pipe: `set -o
    /// pipefail` treats them alike, and a script can still tell that not every item was written.
    case readerLeft = 141
}

import Foundation
import PageProxyCore
import PageProxyServer

/// `PageProxy serve`: load the config, start, and drain gracefully on SIGTERM or SIGINT.
enum ServeCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let path: String
        do {
            path = try CommandOptions.configPath(arguments)
        } catch {
            printError("PageProxy serve: \(error.message)")
            return 2
        }
        let config: Config
        do {
            config = try ConfigLoader.load(path: path, environment: ProcessInfo.processInfo.environment)
        } catch {
            printError("PageProxy: \(error.description)")
            return 1
        }
        let logger = Logger(level: config.logLevel)
        defer { logger.flush(within: .seconds(2)) }
        config.logWarnings(to: logger)
        // Before the first request: its entries are read into pages faulted in now (issue 13, seventeenth pass).
        WarmHeap.warm(for: config.cache)
        let signals = ShutdownSignals(immediateExitCode: 1) { signal in
            logger.log(.info, "signal ignored", [("signal", .int(Int(signal))), ("hint", .string("SIGTERM or SIGINT stops PageProxy; nothing reloads"))])
        }
        // Sockets stay below a line under the open-file limit: out of descriptors, the runtime crashes the process.
        DescriptorReserve.keep(heldEntryFiles: Self.heldEntryFileReserve(config.cache))
        let app: PageProxyApp
        do {
            app = try PageProxyApp.start(config: config, logger: logger)
        } catch {
            logger.log(.error, "could not start", [("error", .string(error.description))])
            printError("PageProxy: could not start: \(error.description)\(Self.hint(for: error))")
            return 1
        }
        if let mock = app.mockServer {
            logger.log(.info, "mock upstream listening", [("address", .string(config.mock?.address ?? "")), ("port", .int(mock.port))])
        }
        logger.log(.info, "listening", [
            ("address", .string(config.listen.address)), ("port", .int(app.server.port)),
            ("routes", .string(config.routes.map(\.name).joined(separator: ","))), ("version", .string(PageProxyVersion.current)),
        ])
        let signal = await signals.first()
        let drainDelay = Self.drainDelay(after: signal, configured: config.server.drainDelay, atTerminal: isatty(STDIN_FILENO) == 1)
        logger.log(.info, "draining", [
            ("signal", .int(Int(signal))), ("drain_delay_seconds", .double(drainDelay.milliseconds / 1000)),
            ("grace_seconds", .double(config.server.shutdownGrace.milliseconds / 1000)),
        ])
        await app.shutdown(drainDelay: drainDelay, grace: config.server.shutdownGrace)
        logger.log(.info, "stopped")
        return 0
    }

    /// The drain delay after a stop `signal`: the configured one for SIGTERM and SIGINT alike (DESIGN.md; a supervisor,
    /// or an image's `STOPSIGNAL SIGINT`, sends SIGINT with a load balancer behind it as much as an orchestrator sends
    /// SIGTERM: review24 P3), but none for a SIGINT while standard input is a terminal: Ctrl-C from a person, with no
    /// load balancer to wait for.
    static func drainDelay(after signal: Int32, configured: Duration, atTerminal: Bool) -> Duration {
        signal == SIGINT && atTerminal ? .zero : configured
    }

    /// The descriptors kept free above the sockets' line for entry files held open: the shared budget whenever
    /// anything may hold one (`CacheConfig.holdsEntryFiles`: persisted answers with the memo on, the default, or
    /// pages with `cache.sendFromFiles`), none otherwise.
    static func heldEntryFileReserve(_ cache: CacheConfig, budget: Int = HeldEntryFileBudget.shared.capacity) -> Int {
        cache.holdsEntryFiles ? budget : 0
    }

    /// What to do about a start-up failure the user can fix.
    static func hint(for error: SocketError) -> String {
        guard case .failed(let call, let code) = error, call.hasPrefix("bind") else { return "" }
        switch code {
        case EADDRINUSE:
            return "; another process (another PageProxy?) listens there: stop it, or choose another port with listen.port or "
                + "PAGEPROXY_PORT (mock.port or PAGEPROXY_MOCK_PORT for the built-in mock)"
        case EACCES:
            return "; ports below 1024 need privileges: choose a port of 1024 or more"
        case EADDRNOTAVAIL:
            return "; no interface has that address: use 127.0.0.1, 0.0.0.0 or an address of this machine"
        default:
            return ""
        }
    }
}

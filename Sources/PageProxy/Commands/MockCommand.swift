import Foundation
import PageProxyCore
import PageProxyMock
import PageProxyServer

/// `PageProxy mock`: run only the mock paginated upstream, for testing clients against it.
enum MockCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        var options: MockUpstreamOptions
        let address: String
        let port: Int
        do {
            let parsed = try CommandOptions(arguments, known: ["address", "port", "items", "page-size", "latency-ms", "close-connections"])
            address = parsed.values["address"] ?? "127.0.0.1"
            port = try parsed.integer("port", default: 8081, range: 0...65535)
            options = MockUpstreamOptions(
                totalItems: try parsed.integer("items", default: 250, range: 0...10_000_000),
                pageSize: try parsed.integer("page-size", default: 20, range: 1...10_000),
                latency: .milliseconds(try parsed.integer("latency-ms", default: 0, range: 0...600_000)))
            // Werkzeug's habit: `Connection: close` on every answer (flask-smorest's route closes them always).
            options.closesEveryConnection = try parsed.integer("close-connections", default: 0, range: 0...1) == 1
        } catch {
            printError("PageProxy mock: \(error.message)")
            return 2
        }
        let logger = Logger(level: .info)
        defer { logger.flush(within: .seconds(2)) }
        let signals = ShutdownSignals(immediateExitCode: 1)
        let server: Server
        do {
            server = try Server(
                address: SocketAddress(host: address, port: port), limits: ServerLimits(),
                responder: MockHTTPResponder(mock: MockUpstream(options: options)), logger: logger)
        } catch {
            printError("PageProxy mock: could not start: \(error.description)")
            return 1
        }
        logger.log(.info, "mock upstream listening", [("address", .string(address)), ("port", .int(server.port))])
        _ = await signals.first()
        await server.stop(grace: .seconds(5))
        return 0
    }
}

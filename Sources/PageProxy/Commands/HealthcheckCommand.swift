import Foundation
import PageProxyCore

/// `PageProxy healthcheck`: the container `HEALTHCHECK`; the slim image has no curl, so the binary asks itself.
enum HealthcheckCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let address: String
        let port: Int
        do throws(CommandOptions.UsageError) {
            let options = try CommandOptions(arguments, known: ["port", "address"])
            if let extra = options.positional.first {
                throw CommandOptions.UsageError(message: "\"\(extra)\" is an extra argument")
            }
            (address, port) = try target(options, environment: ProcessInfo.processInfo.environment)
        } catch {
            // attack13 U1: say what is wrong (a port out of range, an extra argument), then the usage.
            printError("PageProxy healthcheck: \(error.message)\nusage: healthcheck [--port P] [--address A]")
            return 2
        }
        do {
            let deadline = ContinuousClock.now + .seconds(3)
            let socket = try await AsyncSocket.connect(to: SocketAddress(host: address, port: port), deadline: deadline)
            defer { socket.close() }
            try await socket.write(Array("GET /healthz HTTP/1.1\r\nHost: \(address)\r\nConnection: close\r\n\r\n".utf8), deadline: deadline)
            var response: [UInt8] = []
            while try await socket.read(into: &response, deadline: deadline) > 0, response.count < 4096 {}
            let text = String(decoding: response, as: UTF8.self)
            guard text.hasPrefix("HTTP/1.1 200") else {
                printError("unhealthy: \(text.prefix(80))")
                return 1
            }
            return 0
        } catch {
            printError("unhealthy: \(error)")
            return 1
        }
    }

    /// Where to ask: `--address` and `--port`, else where `serve` listens when the environment says so
    /// (`PAGEPROXY_ADDRESS`, `PAGEPROXY_PORT`, which override its config: the image sets them), else 127.0.0.1:8080.
    /// A wildcard address is asked on the loopback (review24 P1: `-e PAGEPROXY_PORT=9000` served on 9000 while the
    /// image's `HEALTHCHECK --port 8080` asked 8080, and the container went unhealthy).
    static func target(_ options: CommandOptions, environment: [String: String]) throws(CommandOptions.UsageError) -> (address: String, port: Int) {
        let port: Int
        if options.values["port"] == nil, let text = environment["PAGEPROXY_PORT"] {
            guard let value = Int(text), (1...65535).contains(value) else {
                throw CommandOptions.UsageError(message: "PAGEPROXY_PORT must be a port in 1...65535 (or give --port), not \"\(text)\"")
            }
            port = value
        } else {
            port = try options.integer("port", default: 8080, range: 1...65535)
        }
        let listening = options.values["address"] ?? environment["PAGEPROXY_ADDRESS"] ?? "127.0.0.1"
        return (listening == "0.0.0.0" ? "127.0.0.1" : listening, port)
    }
}

import PageProxyCore

/// `PageProxy healthcheck`: the container `HEALTHCHECK`; the slim image has no curl, so the binary asks itself.
enum HealthcheckCommand {
    static func run(_ arguments: [String]) async -> Int32 {
        let options: CommandOptions
        let port: Int
        do throws(CommandOptions.UsageError) {
            options = try CommandOptions(arguments, known: ["port", "address"])
            port = try options.integer("port", default: 8080, range: 1...65535)
            if let extra = options.positional.first {
                throw CommandOptions.UsageError(message: "\"\(extra)\" is an extra argument")
            }
        } catch {
            // attack13 U1: say what is wrong (a port out of range, an extra argument), then the usage.
            printError("PageProxy healthcheck: \(error.message)\nusage: healthcheck [--port P] [--address A]")
            return 2
        }
        let address = options.values["address"] ?? "127.0.0.1"
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
}

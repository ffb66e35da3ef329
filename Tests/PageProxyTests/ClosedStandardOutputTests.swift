import Foundation
import PageProxyCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// review13 B1: a log line that standard output refuses (a pipe whose reader left, a terminal gone after SIGHUP, a
/// restarted journald, a full disk) is dropped and counted; the server goes on answering. FileHandle's `write(_:)`
/// stopped the process at the first such line, cutting every answer in flight.
@Suite struct ClosedStandardOutputTests {
    @Test("standard output closed: SIGHUP's and the requests' log lines are dropped, the server answers and stops cleanly")
    func aClosedStandardOutputDropsLinesNotTheServer() async throws {
        let configPath = NSTemporaryDirectory() + "pageproxy-closed-stdout-\(UUID().uuidString).json"
        defer { unlink(configPath) }
        let config = """
            {"listen":{"address":"127.0.0.1","port":0},"server":{"drainDelaySeconds":0},"mock":{"port":0},
             "routes":[{"name":"r","upstream":"http://127.0.0.1:9/","pagination":{"scheme":"page-number"}}]}
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: configPath))
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        // Not inherited by children other tests start meanwhile (the child's standard output is its own copy).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let child = try await ChildProcess(
            executable: ProxyProcess.binary, arguments: ["serve", "--config", configPath], standardOutput: .descriptor(ends[1]))
        close(ends[1])
        let port = try await Self.listeningPort(reading: ends[0])
        // The reader leaves: every later line is EPIPE (SIGPIPE is ignored by the server).
        close(ends[0])
        child.signal(SIGHUP)
        for _ in 0..<3 {
            let health = try await RawHTTPClient.connect(port: port).request("/healthz")
            #expect(health.status == 200)
        }
        try await poll("the dropped lines are counted") {
            let metrics = try? await RawHTTPClient.connect(port: port).request("/metrics")
            let text = metrics.map { String(decoding: $0.body, as: UTF8.self) } ?? ""
            return text.split(separator: "\n").contains { line in
                line.hasPrefix("pageproxy_log_lines_dropped_total ") && line != "pageproxy_log_lines_dropped_total 0"
            }
        }
        #expect(child.isRunning)
        child.signal(SIGTERM)
        let deadline = ContinuousClock.now + .seconds(30)
        while child.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(child.terminationStatus == 0)
    }

    /// Reads the child's standard output (bounded) until its "listening" line, and returns the port it names.
    private static func listeningPort(reading descriptor: Int32) async throws -> Int {
        _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let count = read(descriptor, &buffer, buffer.count)
            if count > 0 { text += String(decoding: buffer[..<count], as: UTF8.self) }
            if let line = text.split(separator: "\n").first(where: { $0.contains("\"msg\":\"listening\"") }),
                let match = line.range(of: #""port":(\d+)"#, options: .regularExpression),
                let port = Int(line[match].dropFirst(7))
            {
                return port
            }
            if count <= 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        throw ProxyProcess.Failure.timedOut("no listening line on standard output: \(text.suffix(300))")
    }
}

import Foundation
import PageProxyCore

/// A real `PageProxy serve` process, for what only a process shows: signals, exit codes, stdout logs.
final class ProxyProcess {
    let process: ChildProcess
    let logURL: URL
    let directory: URL
    private(set) var port = 0

    /// The binary `swift test` built beside the tests: under `--build-path .build-asan` (scripts/sanitizers.sh) the
    /// sanitized one, found beside the running test bundle; otherwise `.build/debug/PageProxy`.
    static var binary: URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("PageProxy")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/PageProxy")
    }

    /// Starts `serve` with `config` (a JSON text whose listen port should be 0) and waits for its "listening" line.
    /// - Parameter openFileLimit: the child's soft and hard `RLIMIT_NOFILE` (set by a shell's `ulimit -n` before it
    ///   becomes `serve`); nil leaves the test process's.
    init(config: String, environment: [String: String] = [:], openFileLimit: Int? = nil) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configURL = directory.appendingPathComponent("config.json")
        try Data(config.utf8).write(to: configURL)
        logURL = directory.appendingPathComponent("stdout.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        let serve = ["serve", "--config", configURL.path]
        let (executable, arguments) =
            if let openFileLimit {
                (URL(fileURLWithPath: "/bin/sh"), ["-c", "ulimit -n \(openFileLimit) && exec \"$0\" \"$@\"", Self.binary.path] + serve)
            } else {
                (Self.binary, serve)
            }
        process = try await ChildProcess(
            executable: executable, arguments: arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
            standardOutput: .descriptor(log.fileDescriptor))
        let listening = try await waitForLogLine { $0.contains("\"msg\":\"listening\"") }
        guard let match = listening.range(of: #""port":(\d+)"#, options: .regularExpression) else { throw Failure.noPort }
        port = Int(listening[match].dropFirst(7)) ?? 0
    }

    enum Failure: Error {
        case noPort
        case timedOut(String)
    }

    var logLines: [String] {
        (try? String(contentsOf: logURL, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
    }

    /// Polls the log (bounded) until a line satisfies `predicate`.
    func waitForLogLine(limit: Duration = .seconds(30), _ predicate: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let line = logLines.first(where: predicate) { return line }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure.timedOut("no matching log line; log: \(logLines.suffix(5))")
    }

    /// Waits (bounded) for the process to exit and returns its status.
    func waitForExit(limit: Duration = .seconds(30)) async throws -> Int32 {
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.interrupt()
                throw Failure.timedOut("process did not exit")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    /// Waits until every thread of the process is stopped (after `SIGSTOP`, which `kill` only queues): until then
    /// it may still be writing or evicting files.
    func waitUntilStopped(limit: Duration = .seconds(30)) async throws {
        let tasks = "/proc/\(process.processIdentifier)/task"
        let deadline = ContinuousClock.now + limit
        while !Self.allStopped(tasks) {
            guard ContinuousClock.now < deadline else { throw Failure.timedOut("process did not stop") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether every thread under `/proc/PID/task` is in state `T` (stopped) or `t` (traced).
    private static func allStopped(_ tasks: String) -> Bool {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks), !threads.isEmpty else { return false }
        return threads.allSatisfy { thread in
            // The state follows the command name, which is in parentheses and may hold spaces.
            guard let stat = try? String(contentsOfFile: "\(tasks)/\(thread)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return false }
            let state = stat[stat.index(after: close)...].drop { $0 == " " }.first
            return state == "T" || state == "t"
        }
    }

    deinit {
        process.signal(SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }
}

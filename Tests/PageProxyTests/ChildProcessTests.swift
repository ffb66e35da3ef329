import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The tests' children end with the test process, however it ends (review8: a runner that died left its
/// `PageProxy serve` children running with parent 1).
@Suite struct ChildProcessTests {
    /// Set only in the helper process `childEndsWhenItsParentIsKilled` starts: where the helper writes its child's pid.
    static let helperPidFile = "PAGEPROXY_TEST_CHILD_PID_FILE"

    @Test("a child started through ChildProcess ends when the process that started it is killed with SIGKILL")
    func childEndsWhenItsParentIsKilled() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let pidFile = directory.appendingPathComponent("child.pid")
        // The helper is this test binary running `helperStartsAChild` alone.
        let helper = try await ChildProcess(
            executable: URL(fileURLWithPath: CommandLine.arguments[0]),
            arguments: ["--testing-library", "swift-testing", "--filter", "helperStartsAChild"],
            environment: ProcessInfo.processInfo.environment.merging([Self.helperPidFile: pidFile.path]) { $1 })
        var child: pid_t = 0
        try await poll("the helper started its child", limit: .seconds(60)) {
            child = (try? String(contentsOf: pidFile, encoding: .utf8)).flatMap { pid_t($0) } ?? 0
            return child > 0 || !helper.isRunning
        }
        try #require(child > 0, "the helper ended without starting a child")
        defer { kill(child, SIGKILL) }
        #expect(Self.parent(of: child) == helper.processIdentifier)
        helper.signal(SIGKILL)
        try await poll("the child ended with its parent", limit: .seconds(20)) { !Self.isAlive(child) }
    }

    /// The helper's side (only when the variable is set): starts a child the usual way, says its pid, and waits
    /// (bounded) to be killed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[helperPidFile] != nil))
    func helperStartsAChild() async throws {
        let pidFile = try #require(ProcessInfo.processInfo.environment[Self.helperPidFile])
        let child = try await ChildProcess(executable: URL(fileURLWithPath: "/bin/sleep"), arguments: ["60"])
        // Written whole, then renamed: the test never reads half a pid.
        try Data("\(child.processIdentifier)".utf8).write(to: URL(fileURLWithPath: pidFile), options: .atomic)
        try await poll("the test kills this helper", limit: .seconds(60)) { false }
    }

    /// Whether `pid` runs (a zombie no one reaped yet has ended).
    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let state = statFields(pid)?.first else { return false }
        return state != "Z" && state != "X"
    }

    private static func parent(of pid: pid_t) -> pid_t? {
        statFields(pid).flatMap { $0.count > 1 ? pid_t($0[1]) : nil }
    }

    /// The fields of `/proc/PID/stat` after the command name (state, parent, ...).
    private static func statFields(_ pid: pid_t) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}

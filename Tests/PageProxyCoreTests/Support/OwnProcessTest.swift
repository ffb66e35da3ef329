import CLinux
import Foundation
import PageProxyMock

#if canImport(Glibc)
import Glibc
#endif

/// One test of this test binary run alone in a process of its own (`--filter`), for what must not share a process
/// with suites running in parallel: a signal's disposition, the limit on open descriptors. The test is enabled only
/// in that process (`isChild`) and calls `finish()` at its end, so that a filter matching nothing does not pass.
enum OwnProcessTest {
    static let variable = "PAGEPROXY_TEST_OWN_PROCESS_DONE_FILE"

    /// Whether this process was started by `run` (the test named there is the one to run).
    static var isChild: Bool { ProcessInfo.processInfo.environment[variable] != nil }

    /// In the child: says the test's body ran to its end, with `note` for the parent (what it measured).
    static func finish(note: String = "") {
        guard let path = ProcessInfo.processInfo.environment[variable] else { return }
        _ = FileManager.default.createFile(atPath: path, contents: Data(note.utf8))
    }

    struct Outcome {
        /// The exit status, when it exited.
        var status: Int32?
        /// The signal that ended it, when one did.
        var signal: Int32?
        /// Whether the test's body ran to its end (`finish()`).
        var finished: Bool
        /// What the child's `finish(note:)` said ("" without one).
        var note: String = ""
    }

    /// Runs the test named `name` alone in a new process of this binary and waits (bounded: 60 s, then it is killed).
    static func run(_ name: String) async throws -> Outcome {
        let done = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-own-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: done) }
        let path = CommandLine.arguments[0]
        let arguments: [String] = [path, "--testing-library", "swift-testing", "--filter", name]
        let environment = ProcessInfo.processInfo.environment.merging([variable: done]) { $1 }
        // Forked on a thread of its own, which waits until the child has run `exec`: not a thread of the pool. No
        // death signal (0): that thread ends at once, and the child is bounded here.
        let (pid, code) = await onOwnThread { () -> (pid_t, Int32) in
            let argv = arguments.map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0)=\($1)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            let pid = pageproxy_spawn_ending_with_parent(path, argv, envp, [-1, -1, -1], 0)
            return (pid, pid > 0 ? 0 : errno)
        }
        guard pid > 0 else { throw Failure.spawnFailed(errno: code) }
        var raw: Int32 = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while waitpid(pid, &raw, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                waitpid(pid, &raw, 0)
                throw Failure.timedOut(name)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let signal = raw & 0x7f
        let note = FileManager.default.contents(atPath: done)
        return Outcome(
            status: signal == 0 ? (raw >> 8) & 0xff : nil, signal: signal == 0 ? nil : signal, finished: note != nil,
            note: note.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    enum Failure: Error {
        case spawnFailed(errno: Int32)
        case timedOut(String)
    }
}

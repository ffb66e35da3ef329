import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the tests that run the `PageProxy` binary.
///
/// Not Foundation's `Process`: on Linux its `run()` finds the highest open descriptor by reading `/proc/self/fd` and
/// copies each entry's whole 256-byte `d_name`, which reads past the end of `readdir`'s buffer once it is full. The
/// test process holds 1,500–2,000 descriptors while suites run side by side, and it crashed there (SIGSEGV in
/// `Process.run`). Here the child closes every descriptor from 3 up (`posix_spawn_file_actions_addclosefrom_np`)
/// after its standard streams are set.
final class ChildProcess: Sendable {
    /// Where a standard stream of the child goes: a descriptor of ours (duplicated into the child), or /dev/null.
    enum Stream {
        case descriptor(Int32)
        case null
    }

    enum Failure: Error {
        case spawnFailed(errno: Int32)
    }

    let processIdentifier: pid_t
    /// The raw wait status once the child has been reaped.
    private let status = Mutex<Int32?>(nil)

    init(
        executable: URL, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        standardInput: Stream = .null, standardOutput: Stream = .null, standardError: Stream = .null
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (stream, target) in [(standardInput, STDIN_FILENO), (standardOutput, STDOUT_FILENO), (standardError, STDERR_FILENO)] {
            switch stream {
            case .descriptor(let fd): posix_spawn_file_actions_adddup2(&actions, fd, target)
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            }
        }
        Self.closeFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Failure.spawnFailed(errno: result) }
        processIdentifier = pid
    }

    /// glibc 2.34's `posix_spawn_file_actions_addclosefrom_np`, which the Glibc module does not declare.
    private static func closeFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) {
        typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: AddCloseFrom.self)(actions, lowest)
    }

    /// Whether the child has not exited yet (reaps it when it has).
    var isRunning: Bool {
        status.withLock { status in
            guard status == nil else { return false }
            var raw: Int32 = 0
            if waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier { status = raw }
            return status == nil
        }
    }

    /// The exit status, or the signal that ended the child (as Foundation's `Process` reports it); -1 while running.
    var terminationStatus: Int32 {
        guard !isRunning, let raw = status.withLock({ $0 }) else { return -1 }
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : signal
    }

    func signal(_ number: Int32) {
        if isRunning { kill(processIdentifier, number) }
    }

    func interrupt() { signal(SIGINT) }

    deinit {
        if isRunning {
            kill(processIdentifier, SIGKILL)
            var raw: Int32 = 0
            waitpid(processIdentifier, &raw, 0)
        }
    }
}

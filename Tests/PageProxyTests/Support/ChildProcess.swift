import Dispatch
import Foundation
import CLinux
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process of the tests, for the tests that run the `PageProxy` binary. It ends with the test process: a
/// runner that crashed or was killed left its `PageProxy serve` children running with parent 1 (review8).
///
/// Not Foundation's `Process`: on Linux its `run()` finds the highest open descriptor by reading `/proc/self/fd` and
/// copies each entry's whole 256-byte `d_name`, which reads past the end of `readdir`'s buffer once it is full. The
/// test process holds 1,500–2,000 descriptors while suites run side by side, and it crashed there (SIGSEGV in
/// `Process.run`). Not `posix_spawn` either, which runs nothing in the child before the exec: the child sets
/// `PR_SET_PDEATHSIG` itself (`pageproxy_spawn_ending_with_parent`), then closes every descriptor from 3 up once its
/// standard streams are set.
final class ChildProcess: Sendable {
    /// Where a standard stream of the child goes: a descriptor of ours (duplicated into the child), or /dev/null.
    enum Stream {
        case descriptor(Int32)
        case null

        var descriptor: Int32 {
            switch self {
            case .descriptor(let fd): fd
            case .null: -1
            }
        }
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
    ) async throws {
        let path = executable.path
        let streams = [standardInput.descriptor, standardOutput.descriptor, standardError.descriptor]
        let spawned = await SpawnThread.shared.run {
            let argv = ([path] + arguments).map { strdup($0) } + [nil]
            let envp = environment.map { strdup("\($0)=\($1)") } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            // SIGKILL, not SIGTERM: `serve` drains on SIGTERM (a 5 s delay by default, then its grace period), and no
            // one is left to read what it would finish.
            let pid = pageproxy_spawn_ending_with_parent(path, argv, envp, streams, SIGKILL)
            return (pid, pid < 0 ? errno : 0)
        }
        guard spawned.pid > 0 else { throw Failure.spawnFailed(errno: spawned.errno) }
        processIdentifier = spawned.pid
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

/// The one thread that starts every `ChildProcess`. `PR_SET_PDEATHSIG` fires when the *thread* that forked the child
/// ends, not its process, and the cooperative pool's threads come and go (an idle one exits): a child forked from one
/// could be ended mid-test. This thread is never ended, so the signal comes only with the test process's death.
private final class SpawnThread: Sendable {
    static let shared = SpawnThread()

    private let jobs = Mutex<[@Sendable () -> Void]>([])
    private let queued = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            while true {
                queued.wait()
                jobs.withLock { $0.removeFirst() }()
            }
        }
        thread.name = "ChildProcess.spawn"
        thread.start()
    }

    /// Runs `spawn` on this thread and returns its pid and errno. The caller's task is suspended meanwhile (until
    /// the child has run `exec`), holding no thread of the cooperative pool.
    func run(_ spawn: @escaping @Sendable () -> (pid: pid_t, errno: Int32)) async -> (pid: pid_t, errno: Int32) {
        await withCheckedContinuation { continuation in
            jobs.withLock { $0.append { continuation.resume(returning: spawn()) } }
            queued.signal()
        }
    }
}

import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGTERM and SIGINT into an async event: the first asks for a graceful stop, a second exits at once.
/// SIGHUP, SIGUSR1 and SIGUSR2 are ignored and told to `ignored` (their default action ends the process at once, with
/// no drain and no log line, attack11 L6): PageProxy reloads nothing on a signal (as Caddy, not nginx), so an
/// operator's `kill -HUP` out of habit costs nothing, and a closed terminal does not cut answers in flight.
// @unchecked: the signal sources are created in `init` and never touched again; they live as long as the process.
package final class ShutdownSignals: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []
    private let stream: AsyncStream<Int32>

    /// Installs the handlers; a second signal exits with `immediateExitCode`.
    package init(immediateExitCode: Int32, ignored: @escaping @Sendable (Int32) -> Void = { _ in }) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        let received = Mutex(0)
        let queue = DispatchQueue(label: "pageproxy.signals")
        for signalNumber in [SIGTERM, SIGINT] {
            // Dispatch sees the signal only once its default action is ignored.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler {
                let count = received.withLock { count in
                    count += 1
                    return count
                }
                if count == 1 { continuation.yield(signalNumber) } else { exit(immediateExitCode) }
            }
            source.activate()
            sources.append(source)
        }
        for signalNumber in Self.ignoredSignals {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { ignored(signalNumber) }
            source.activate()
            sources.append(source)
        }
    }

    /// The signals that would end the process by default, and that PageProxy takes as no request to stop.
    package static let ignoredSignals = [SIGHUP, SIGUSR1, SIGUSR2]

    /// Waits for the first signal and returns its number.
    package func first() async -> Int32 {
        for await signalNumber in stream { return signalNumber }
        return SIGTERM
    }
}

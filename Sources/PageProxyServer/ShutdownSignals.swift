import CLinux
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGTERM and SIGINT into an async event: the first asks for a graceful stop, a second exits at once.
/// SIGHUP, SIGUSR1 and SIGUSR2 are ignored and told to `ignored` (their default action ends the process at once, with
/// no drain and no log line, attack11 L6): PageProxy reloads nothing on a signal (as Caddy, not nginx), so an
/// operator's `kill -HUP` out of habit costs nothing, and a closed terminal does not cut answers in flight.
///
/// The signals are caught by a handler that writes their number to a pipe (`pageproxy_signals_to_pipe`), read by a
/// thread of its own: none is lost, whatever thread it lands on and however soon after the start it comes. (Dispatch's
/// signal sources wanted the signal ignored first, and one that came before the source was registered was dropped:
/// a SIGTERM right after "listening" was never seen, under load.) A second SIGTERM exits even while every thread of
/// the cooperative pool is stuck.
package final class ShutdownSignals: Sendable {
    private let stream: AsyncStream<Int32>

    /// Installs the handler; a second signal exits with `immediateExitCode`.
    package init(immediateExitCode: Int32, ignored: @escaping @Sendable (Int32) -> Void = { _ in }) {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        self.stream = stream
        let stopping = [SIGTERM, SIGINT]
        let caught = stopping + Self.ignoredSignals
        let pipe = caught.withUnsafeBufferPointer { pageproxy_signals_to_pipe($0.baseAddress, Int32($0.count)) }
        guard pipe >= 0 else {
            // Left at their defaults: SIGTERM and SIGINT then end the process at once, without a drain.
            continuation.finish()
            return
        }
        let thread = Thread {
            var received = 0
            var byte: UInt8 = 0
            while true {
                let count = read(pipe, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                guard count == 1 else { return }
                let signalNumber = Int32(byte)
                guard stopping.contains(signalNumber) else {
                    ignored(signalNumber)
                    continue
                }
                received += 1
                if received == 1 { continuation.yield(signalNumber) } else { exit(immediateExitCode) }
            }
        }
        thread.name = "pageproxy.signals"
        thread.start()
    }

    /// The signals that would end the process by default, and that PageProxy takes as no request to stop.
    package static let ignoredSignals = [SIGHUP, SIGUSR1, SIGUSR2]

    /// Waits for the first signal and returns its number (SIGTERM if the handler could not be installed and nothing
    /// will come: the caller then waits forever, as before, and the default action ends the process).
    package func first() async -> Int32 {
        for await signalNumber in stream { return signalNumber }
        return await withUnsafeContinuation { (_: UnsafeContinuation<Int32, Never>) in }
    }
}

import Foundation
import PageProxyCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Writes one JSON object per line to standard output; lines from concurrent tasks never interleave.
///
/// A write to standard output can block (a full pipe, a slow terminal): it happens on a serial Dispatch queue of
/// the logger's, in the order the lines were logged, never on the cooperative pool nor under a lock a task holds.
/// `flush()` waits for the lines logged so far. A line that cannot be written (standard output closed, a terminal gone
/// after SIGHUP, a full disk) is dropped and counted (`droppedLines`), never a crash (`DescriptorOutput`).
package final class Logger: Sendable {
    private let level: LogLevel
    /// Where lines go at once, under the lock (an in-memory sink in tests); nil when they are queued.
    private let sink: Mutex<(@Sendable (String) -> Void)?>
    /// The queue that writes lines with `write`, in order, when they are not handed to `sink`.
    private let queue: DispatchQueue?
    /// Writes a line; false when it could not be written.
    private let write: (@Sendable (String) -> Bool)?
    /// Lines `write` could not write, or that found `maxQueuedLines` waiting.
    private let dropped = Atomic<Int>(0)
    /// Lines handed to the queue and not written yet.
    private let queued = Atomic<Int>(0)
    /// The most lines waiting for a blocked output (~2–5 MB of typical lines).
    package static let maxQueuedLines = 10_000

    /// A logger that writes to standard output.
    package convenience init(level: LogLevel) {
        self.init(level: level, descriptor: STDOUT_FILENO)
    }

    /// A logger that writes to `descriptor` (standard output or standard error), dropping what cannot be written.
    package convenience init(level: LogLevel, descriptor: Int32) {
        self.init(level: level, sink: nil, queuedWrite: { line in DescriptorOutput.write(line, to: descriptor) == nil })
    }

    /// A logger that hands each line to `sink` at once (tests collect lines this way).
    package convenience init(level: LogLevel, sink: @escaping @Sendable (String) -> Void) {
        self.init(level: level, sink: sink, queuedWrite: nil)
    }

    /// A logger whose lines `write` receives on the logger's own serial queue, in order (standard output in production).
    package static func queued(level: LogLevel, write: @escaping @Sendable (String) -> Void) -> Logger {
        Logger(level: level, sink: nil, queuedWrite: { line in write(line); return true })
    }

    private init(level: LogLevel, sink: (@Sendable (String) -> Void)?, queuedWrite write: (@Sendable (String) -> Bool)?) {
        self.level = level
        self.sink = Mutex(sink)
        self.queue = write == nil ? nil : DispatchQueue(label: "pageproxy.logger")
        self.write = write
    }

    /// Returns once every line logged so far is written.
    package func flush() {
        queue?.sync {}
    }

    /// Returns once every line logged so far is written, or after `limit` (before the process exits: an output
    /// whose reader stopped without closing, a paused terminal, must not keep a drained server from exiting; review14
    /// F11); whether it was.
    @discardableResult
    package func flush(within limit: DispatchTimeInterval) -> Bool {
        guard let queue else { return true }
        let written = DispatchSemaphore(value: 0)
        queue.async { written.signal() }
        return written.wait(timeout: .now() + limit) == .success
    }

    /// Lines dropped so far because their descriptor refused them (`pageproxy_log_lines_dropped_total`).
    package var droppedLines: Int { dropped.load(ordering: .relaxed) }

    /// Whether a line at `level` would be written: callers skip building costly fields when it would not.
    package func logs(_ level: LogLevel) -> Bool { level >= self.level }

    package func log(_ level: LogLevel, _ message: String, _ fields: [(String, LogValue)] = []) {
        guard level >= self.level else { return }
        let time = Self.timestamp(Date())
        let line = JSONText.object([("time", .string(time)), ("level", .string(level.rawValue)), ("msg", .string(message))] + fields) + "\n"
        if let queue, let write {
            // A reader that stops without closing (a terminal paused with Ctrl-S, `serve | less` not read) blocks the
            // queue's write: past `maxQueuedLines` waiting, lines are dropped and counted rather than kept without
            // bound (review14 F11).
            guard queued.wrappingAdd(1, ordering: .relaxed).newValue <= Self.maxQueuedLines else {
                queued.wrappingSubtract(1, ordering: .relaxed)
                dropped.add(1, ordering: .relaxed)
                return
            }
            queue.async { [self] in
                if !write(line) { dropped.add(1, ordering: .relaxed) }
                queued.wrappingSubtract(1, ordering: .relaxed)
            }
        } else {
            sink.withLock { $0?(line) }
        }
    }

    /// RFC 3339 in UTC with milliseconds: `2026-11-23T01:48:08.311Z`.
    package static func timestamp(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        let milliseconds = Int((interval - interval.rounded(.down)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int = 2) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(parts.tm_year + 1900)-\(pad(parts.tm_mon + 1))-\(pad(parts.tm_mday))T\(pad(parts.tm_hour)):\(pad(parts.tm_min)):"
            + "\(pad(parts.tm_sec)).\(pad(Int32(milliseconds), 3))Z"
    }
}

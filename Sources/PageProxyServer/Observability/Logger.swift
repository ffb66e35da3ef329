import Foundation
import PageProxyCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Writes one JSON object per line to standard output; lines from concurrent tasks never interleave.
package final class Logger: Sendable {
    private let level: LogLevel
    private let sink: Mutex<(String) -> Void>

    /// A logger that writes to standard output.
    package init(level: LogLevel) {
        self.level = level
        self.sink = Mutex { line in
            FileHandle.standardOutput.write(Data(line.utf8))
        }
    }

    /// A logger that hands each line to `sink` (tests collect lines this way).
    package init(level: LogLevel, sink: @escaping @Sendable (String) -> Void) {
        self.level = level
        self.sink = Mutex(sink)
    }

    /// Whether a line at `level` would be written: callers skip building costly fields when it would not.
    package func logs(_ level: LogLevel) -> Bool { level >= self.level }

    package func log(_ level: LogLevel, _ message: String, _ fields: [(String, LogValue)] = []) {
        guard level >= self.level else { return }
        let time = Self.timestamp(Date())
        let line = JSONText.object([("time", .string(time)), ("level", .string(level.rawValue)), ("msg", .string(message))] + fields) + "\n"
        sink.withLock { $0(line) }
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

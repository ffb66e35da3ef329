import Dispatch
import PageProxyCore
import Synchronization
import Testing

@testable import PageProxyServer

/// Standard output is written on the logger's own queue: a stdout that blocks never blocks a task that logs.
@Suite struct LoggerTests {
    @Test func aBlockedOutputDoesNotBlockTheTaskThatLogsAndLinesKeepTheirOrder() async {
        let release = DispatchSemaphore(value: 0)
        let written = Mutex<[String]>([])
        // The first write hangs, as a write to a full pipe does, until the test has logged every line.
        let queued = Logger.queued(level: .info, write: { line in
            if written.withLock({ $0.isEmpty }) { release.wait() }
            written.withLock { $0.append(line) }
        })
        for number in 1...3 { queued.log(.info, "line", [("n", .int(number))]) }
        // Logging returned with the first write still blocked.
        #expect(written.withLock { $0.isEmpty })
        release.signal()
        queued.flush()
        let lines = written.withLock { $0 }
        #expect(lines.count == 3)
        #expect(lines.enumerated().allSatisfy { $0.element.contains("\"n\":\($0.offset + 1)") })
    }
}

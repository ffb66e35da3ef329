import Dispatch
import PageProxyCore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import PageProxyServer

/// Standard output is written on the logger's own queue: a stdout that blocks never blocks a task that logs.
@Suite struct LoggerTests {
    /// contract22 F6: a log line's `duration_ms` printed as `1797.1779999999999`.
    @Test("a duration in milliseconds prints with at most three decimals")
    func durationMillisecondsPrintShort() {
        #expect("\((Duration.seconds(1) + .microseconds(797_178)).milliseconds)" == "1797.178")
        for microseconds in stride(from: 0, to: 5_000_000, by: 7_919) {
            let text = "\((Duration.microseconds(microseconds) + .nanoseconds(999)).milliseconds)"
            let decimals = text.split(separator: ".").last?.count ?? 0
            #expect(decimals <= 3, "\(microseconds) µs printed \(text)")
        }
    }

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

/// review13 B1: a line standard output refuses is dropped and counted, not a crash of the process.
@Suite struct LoggerDroppedLineTests {
    @Test("lines to a pipe whose reader left are dropped and counted")
    func linesToAGoneReaderAreDropped() {
        _ = signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        close(ends[0])
        defer { close(ends[1]) }
        let logger = Logger(level: .info, descriptor: ends[1])
        for number in 1...3 { logger.log(.info, "line", [("n", .int(number))]) }
        logger.log(.debug, "below the level: not written, not dropped")
        logger.flush()
        #expect(logger.droppedLines == 3)
    }
}

/// review14 F11: an output that blocks (a paused terminal) holds at most `maxQueuedLines`; the rest are dropped and
/// counted, not kept without bound.
@Suite struct LoggerBoundTests {
    @Test("past maxQueuedLines waiting for a blocked write, lines are dropped and counted")
    func aBlockedOutputKeepsABoundedQueue() {
        let release = DispatchSemaphore(value: 0)
        let written = Mutex(0)
        let logger = Logger.queued(level: .info, write: { _ in
            if written.withLock({ $0 == 0 }) { release.wait() }
            written.withLock { $0 += 1 }
        })
        let extra = 50
        for number in 0..<(Logger.maxQueuedLines + extra) { logger.log(.info, "line", [("n", .int(number))]) }
        #expect(logger.droppedLines == extra)
        release.signal()
        logger.flush()
        #expect(written.withLock { $0 } == Logger.maxQueuedLines)
    }

    @Test("the flush at exit gives up on an output that stopped taking lines, and says so (review14 F11)")
    func theFlushAtExitIsBounded() {
        let release = DispatchSemaphore(value: 0)
        let logger = Logger.queued(level: .info, write: { _ in release.wait() })
        logger.log(.info, "blocked")
        #expect(!logger.flush(within: .milliseconds(50)))
        release.signal()
        #expect(logger.flush(within: .seconds(30)))
    }
}

/// The event loop's time line: nanoseconds since a fixed `ContinuousClock` instant.
///
/// Every deadline the socket layer is given is a `ContinuousClock.Instant` (the process's one clock for deadlines,
/// see `PageProxyClock`); `SocketReadiness` converts it here once, so that the loop's heap and its epoll timeouts
/// work in plain integers. Never mixed with Dispatch's uptime nanoseconds: on Linux `ContinuousClock` counts the
/// time the machine is suspended (CLOCK_BOOTTIME) and Dispatch does not (CLOCK_MONOTONIC).
enum LoopClock {
    /// Read the first time the loop's clock is: every instant before it has passed already.
    private static let origin = ContinuousClock.now

    /// Now, on the loop's time line.
    static var now: UInt64 { nanoseconds(at: .now) }

    /// `instant` on the loop's time line: 0 for an instant before the origin (passed), saturating far in the future.
    static func nanoseconds(at instant: ContinuousClock.Instant) -> UInt64 {
        let elapsed = instant - origin
        guard elapsed > .zero else { return 0 }
        // Both components are non-negative for a positive duration.
        let (seconds, attoseconds) = elapsed.components
        let whole = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let total = whole.partialValue.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        return whole.overflow || total.overflow ? .max : total.partialValue
    }
}

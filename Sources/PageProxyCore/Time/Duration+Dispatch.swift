import Dispatch

extension Duration {
    /// The duration as a Dispatch interval, rounded to nanoseconds and clamped to what Dispatch accepts.
    package var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow, nanoseconds.partialValue < Int64(Int.max / 2) else { return .seconds(Int(Int32.max)) }
        return .nanoseconds(Int(max(0, nanoseconds.partialValue + attoseconds / 1_000_000_000)))
    }
}

/// When a write stops waiting for its peer to take bytes: at a fixed instant (an upstream request's deadline), or
/// once the peer has taken nothing for `timeout`, renewed whenever it takes some — nginx's `send_timeout`, "set only
/// between two successive write operations, not for the transmission of the whole response".
///
/// Why (attack5 F2): an answer written in one call had one deadline for all of it, so a client reading a 10.6 MB
/// answer at 200 KB/s was cut at 30 s every time, while a larger, spooled answer (written a chunk at a time, each
/// with its own deadline) reached it whole.
package struct WriteDeadline: Sendable {
    private var instant: ContinuousClock.Instant?
    private let renewal: Duration?
    private var tookBytes = false

    private init(instant: ContinuousClock.Instant?, renewal: Duration?) {
        self.instant = instant
        self.renewal = renewal
    }

    /// At `instant` whatever the peer takes (nil: never).
    package static func at(_ instant: ContinuousClock.Instant?) -> WriteDeadline {
        WriteDeadline(instant: instant, renewal: nil)
    }

    /// Once the peer has taken nothing for `timeout`.
    package static func idle(_ timeout: Duration) -> WriteDeadline {
        WriteDeadline(instant: .now + timeout, renewal: timeout)
    }

    /// The peer took bytes (the clock is read only if a wait follows: a write the kernel takes whole reads it never).
    package mutating func noteProgress() { tookBytes = true }

    /// The instant to wait until now, renewed when the peer took bytes since the last wait.
    package mutating func forWaiting() -> ContinuousClock.Instant? {
        if tookBytes, let renewal {
            instant = .now + renewal
            tookBytes = false
        }
        return instant
    }
}

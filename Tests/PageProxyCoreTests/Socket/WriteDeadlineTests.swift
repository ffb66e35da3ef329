import Testing

@testable import PageProxyCore

/// A write's deadline: fixed, or renewed whenever the peer takes bytes (nginx's `send_timeout`).
@Suite struct WriteDeadlineTests {
    @Test("an idle deadline moves on once the peer took bytes, and only then")
    func idleDeadlineIsRenewedByProgress() throws {
        var deadline = WriteDeadline.idle(.seconds(30))
        let waitFirst = deadline.forWaiting()
        let first = try #require(waitFirst)
        let again = deadline.forWaiting()
        #expect(again == first)
        deadline.noteProgress()
        // Read from the clock again: later than the first (the clock counts nanoseconds).
        let waitSecond = deadline.forWaiting()
        let second = try #require(waitSecond)
        #expect(second > first)
        let third = deadline.forWaiting()
        #expect(third == second)
    }

    @Test("a fixed deadline stays where it is whatever the peer takes")
    func fixedDeadlineStays() {
        let instant = ContinuousClock.now + .seconds(5)
        var deadline = WriteDeadline.at(instant)
        deadline.noteProgress()
        let waited = deadline.forWaiting()
        #expect(waited == instant)
        var never = WriteDeadline.at(nil)
        never.noteProgress()
        let neverWaited = never.forWaiting()
        #expect(neverWaited == nil)
    }
}

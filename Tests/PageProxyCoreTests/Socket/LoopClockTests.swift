import Testing

@testable import PageProxyCore

/// The event loop's time line, onto which `SocketReadiness` converts every `ContinuousClock` deadline once.
@Suite struct LoopClockTests {
    @Test func durationsBetweenInstantsAreKeptToTheNanosecond() {
        let start = ContinuousClock.now + .seconds(5)
        let later = start + .milliseconds(1500) + .nanoseconds(7)
        #expect(LoopClock.nanoseconds(at: later) - LoopClock.nanoseconds(at: start) == 1_500_000_007)
    }

    @Test func anInstantThatHasPassedIsAtOrBeforeNow() {
        let passed = ContinuousClock.now - .seconds(3600)
        #expect(LoopClock.nanoseconds(at: passed) <= LoopClock.now)
        #expect(LoopClock.nanoseconds(at: ContinuousClock.now - .seconds(Int64.max / 2)) == 0)
    }

    @Test func aFarFutureInstantSaturatesInsteadOfWrapping() {
        let farFuture = ContinuousClock.now + .seconds(Int64.max / 2)
        #expect(LoopClock.nanoseconds(at: farFuture) == .max)
        #expect(LoopClock.nanoseconds(at: ContinuousClock.now + .seconds(3600)) > LoopClock.now)
    }
}

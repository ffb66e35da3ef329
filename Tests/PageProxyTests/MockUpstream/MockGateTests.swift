import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// The mock's hold (`holdUntilInFlight`): it opens when `count` requests wait, or at its time limit, and says which,
/// so that a test whose fan-out never came fails by name (cleanup24).
@Suite struct MockGateTests {
    @Test func aHoldThatFillsOpensWithoutItsLimit() async {
        let gate = MockGate(count: 2, holdsFirst: true, limit: .seconds(60))
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await gate.pass() }
            group.addTask { await gate.pass() }
        }
        #expect(!gate.openedAtLimit)
    }

    @Test func aHoldThatNeverFillsOpensAtItsLimitAndSaysSo() async {
        let gate = MockGate(count: 2, holdsFirst: true, limit: .milliseconds(50))
        await gate.pass()
        #expect(gate.openedAtLimit)
    }

    @Test func theFirstRequestPassesAloneWithoutCounting() async {
        let gate = MockGate(count: 2, limit: .milliseconds(50))
        await gate.pass()
        #expect(!gate.openedAtLimit)
    }

    /// End to end: a hold one past the route's concurrency is never filled; it opens at its 10 s limit, the walk ends,
    /// and the stack records an issue naming the hold (before: nothing, and only a test's own peak check could fail).
    @Test func anUnfilledHoldIsAnIssueTheStackNames() async throws {
        var options = SchemeRoutes.mockOptions
        options.holdUntilInFlight = 5  // the route's concurrency is 4
        try await withKnownIssue("the hold opens at its limit, and the stack says so") {
            try await TestStack.run(routes: [SchemeRoutes.all[2]], mockOptions: options) { stack in
                let response = try await stack.get("/github?mock_total=100")
                #expect(response.status == 200)
                #expect(stack.mock.log.peakInFlight == 4)
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("requests were never in flight at once") }
        }
    }
}

import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// A renderer's walk ends with its answer: once the responder has returned, no page fetch of the request is still
/// in flight upstream (the walk's fetches are children of its task group), however the walk ended.
@Suite struct WalkScopeInMemoryTests {
    /// Page 2 is cut short (a walk failure, never retried) while page 3 stalls until cancelled.
    private static let faults = "mock_fault=malformed@2,stall@3"

    @Test func aMergedWalkThatFailsLeavesNoFetchInFlight() async throws {
        let proxy = InMemoryProxy()
        let answer = try await proxy.request("/github?mock_total=300&\(Self.faults)")
        #expect(answer.response.status == 502)
        #expect(proxy.mock.log.inFlight == 0)
    }

    @Test func anNDJSONWalkThatFailsAfterItsFirstPageLeavesNoFetchInFlight() async throws {
        let proxy = InMemoryProxy()
        let answer = try await proxy.request("/github?mock_total=300&_format=ndjson&\(Self.faults)")
        #expect(answer.response.status == 200)
        #expect(!answer.response.isComplete)
        #expect(proxy.mock.log.inFlight == 0)
    }

    @Test func aHEADOfAnNDJSONWalkLeavesNoFetchInFlight() async throws {
        let proxy = InMemoryProxy()
        let answer = try await proxy.request("/github?mock_total=300&_format=ndjson&mock_fault=stall@2,stall@3", method: .head)
        #expect(answer.response.status == 200)
        #expect(proxy.mock.log.inFlight == 0)
    }
}

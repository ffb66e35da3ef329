import Dispatch
import PageProxyCore
import Synchronization
import Testing

/// Name resolution runs off the cooperative pool and ends at the fetch's deadline, even when the lookup hangs.
@Suite struct AddressResolverTests {
    /// A lookup that blocks its (Dispatch) thread until the test releases it, as a hung DNS server would.
    private final class HangingLookup: Sendable {
        let release = DispatchSemaphore(value: 0)
        let calls = Mutex(0)
        var lookup: AddressResolver.Lookup {
            { host, port throws(SocketError) in
                self.calls.withLock { $0 += 1 }
                self.release.wait()
                return try SocketAddress(host: "127.0.0.1", port: port)
            }
        }
    }

    @Test func aLiteralNeedsNoLookup() async throws {
        let hanging = HangingLookup()
        let address = try await AddressResolver.resolve(host: "127.0.0.1", port: 80, deadline: .now, lookup: hanging.lookup)
        #expect(address.host == "127.0.0.1")
        #expect(hanging.calls.withLock { $0 } == 0)
    }

    @Test func aLookupThatHangsEndsAtTheDeadline() async {
        let hanging = HangingLookup()
        // The deadline has passed already: only the hung lookup could keep the caller waiting.
        await #expect(throws: SocketError.timedOut) {
            _ = try await AddressResolver.resolve(host: "hangs.test", port: 80, deadline: .now, lookup: hanging.lookup)
        }
        hanging.release.signal()
    }

    @Test func aCancelledCallerStopsWaitingForAHungLookup() async {
        let hanging = HangingLookup()
        let waiter = Task {
            try await AddressResolver.resolve(host: "hangs.test", port: 80, deadline: .now + .seconds(3600), lookup: hanging.lookup)
        }
        waiter.cancel()
        await #expect(throws: SocketError.cancelled) { _ = try await waiter.value }
        hanging.release.signal()
    }

    @Test func localhostResolves() async throws {
        let address = try await AddressResolver.resolve(host: "localhost", port: 80, deadline: .now + .seconds(30))
        #expect(["127.0.0.1", "::1"].contains(address.host))
    }
}

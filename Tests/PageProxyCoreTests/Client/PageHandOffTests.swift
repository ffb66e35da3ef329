import Synchronization
import Testing

@testable import PageProxyCore

/// The hand-off between a library walk's producer task and its iterator (`PageSequence`).
@Suite struct PageHandOffTests {
    private final class Flag: Sendable {
        let value = Atomic(false)
    }

    @Test("a walk cancelled before it gives a page returns from give: its task is not left suspended for good")
    func aCancelledGiverIsNotHeld() async throws {
        let handOff = PageHandOff()
        let returned = Flag()
        // The cancellation handler runs at once for a task cancelled before `give` (before `give` stored its wait):
        // the suite under LeakSanitizer found four producer tasks left suspended there.
        let giver = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await handOff.give(.success(nil))
            returned.value.store(true, ordering: .relaxed)
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while !returned.value.load(ordering: .relaxed), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let didReturn = returned.value.load(ordering: .relaxed)
        #expect(didReturn)
        // What was given stays for an iterator that still takes.
        #expect(try await handOff.take().get() == nil)
        giver.cancel()
    }

    @Test("a page given is taken, and the giver waits until then")
    func aPageIsTakenOnce() async throws {
        let handOff = PageHandOff()
        let taken = Task { await handOff.take() }
        await handOff.give(.success(nil))
        #expect(try await taken.value.get() == nil)
    }
}

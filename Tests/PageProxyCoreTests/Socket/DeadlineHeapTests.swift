import Testing

@testable import PageProxyCore

/// The event loop's timers: due entries come out earliest first, the rest stay.
@Suite struct DeadlineHeapTests {
    @Test func dueEntriesComeOutEarliestFirstAndTheRestStay() {
        var heap = DeadlineHeap<Int>()
        var generator = SystemRandomNumberGenerator()
        let deadlines = (0..<500).map { _ in UInt64.random(in: 0..<1000, using: &generator) }
        for (index, deadline) in deadlines.enumerated() { heap.insert(index, at: deadline) }
        #expect(heap.earliest == deadlines.min())
        let due = heap.removeDue(at: 499)
        #expect(due.map(\.deadline) == deadlines.filter { $0 <= 499 }.sorted())
        #expect(due.allSatisfy { deadlines[$0.value] == $0.deadline })
        #expect(heap.count == deadlines.filter { $0 > 499 }.count)
        #expect(heap.removeDue(at: .max).map(\.deadline) == deadlines.filter { $0 > 499 }.sorted())
        #expect(heap.earliest == nil)
    }

    @Test func removingEntriesKeepsTheOrderOfTheOthers() {
        var heap = DeadlineHeap<Int>()
        for value in 0..<300 { heap.insert(value, at: UInt64((value * 7919) % 300)) }
        heap.removeAll { $0 % 3 == 0 }
        let rest = heap.removeDue(at: .max)
        #expect(rest.count == 200)
        #expect(rest.allSatisfy { $0.value % 3 != 0 })
        #expect(rest.map(\.deadline) == rest.map(\.deadline).sorted())
    }

    @Test func nothingIsDueBeforeTheEarliestDeadline() {
        var heap = DeadlineHeap<String>()
        heap.insert("b", at: 20)
        heap.insert("a", at: 10)
        #expect(heap.removeDue(at: 9).isEmpty)
        #expect(heap.removeDue(at: 10).map(\.value) == ["a"])
        #expect(heap.earliest == 20)
    }
}

/// A min-heap of deadlines (nanoseconds on `LoopClock`'s time line), each with a value: the event loop's timers.
///
/// The loop sleeps until `earliest` and then takes every entry `due` by the time it woke. Entries are never
/// removed early: their owners ignore a deadline that no longer applies, and `removeAll(where:)` drops the
/// entries of closed sockets in one pass when they pile up.
package struct DeadlineHeap<Value> {
    private var entries: [(deadline: UInt64, value: Value)] = []

    package init() {}

    package var count: Int { entries.count }

    /// The earliest deadline, or nil when the heap is empty.
    package var earliest: UInt64? { entries.first?.deadline }

    package mutating func insert(_ value: Value, at deadline: UInt64) {
        entries.append((deadline, value))
        siftUp(entries.count - 1)
    }

    /// Removes and returns every entry whose deadline is at or before `now`, earliest first.
    package mutating func removeDue(at now: UInt64) -> [(deadline: UInt64, value: Value)] {
        var due: [(deadline: UInt64, value: Value)] = []
        while let first = entries.first, first.deadline <= now {
            due.append(first)
            let last = entries.removeLast()
            if !entries.isEmpty {
                entries[0] = last
                siftDown(0)
            }
        }
        return due
    }

    /// Drops every entry whose value matches, then restores the heap order in linear time.
    package mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        entries.removeAll { shouldRemove($0.value) }
        for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count, entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

extension DeadlineHeap: Sendable where Value: Sendable {}

/// The memory one merged answer may hold: its own allowance, then bytes borrowed from the process's
/// `HeldBytesBudget` in steps while it lends them, given back when the answer is done with them.
package struct HeldBytesLoan {
    /// Bytes the answer may hold without borrowing.
    package let allowance: Int
    private let budget: HeldBytesBudget?
    /// Bytes borrowed from `budget` and not given back yet.
    package private(set) var borrowed = 0

    /// Borrowed bytes are taken in steps of this size, so that a growing answer asks the budget rarely.
    package static let step = 256 << 10

    package init(allowance: Int, budget: HeldBytesBudget?) {
        self.allowance = allowance
        self.budget = budget
    }

    /// Whether `total` bytes of memory may be held: within the allowance and what is borrowed, or with more borrowed
    /// now. `total` is the memory the answer's buffers take (their capacities), not the bytes written into them: a
    /// buffer reserved whole takes its capacity from the moment it is made.
    package mutating func mayHold(_ total: Int) -> Bool {
        let needed = total - allowance - borrowed
        guard needed > 0 else { return true }
        guard let budget else { return false }
        let steps = (needed + Self.step - 1) / Self.step * Self.step
        guard budget.reserve(steps) else { return false }
        borrowed += steps
        return true
    }

    /// Gives back everything borrowed.
    package mutating func giveBack() {
        budget?.release(borrowed)
        borrowed = 0
    }
}

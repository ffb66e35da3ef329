import Synchronization

/// Every upstream origin's `OriginBudget`, made once from the configuration, so that all the routes and client
/// requests of the process that reach one origin share its budget.
package final class OriginBudgets: Sendable {
    private let budgets: [String: OriginBudget]

    /// - Parameter configurations: each route's origin (`Origin.description`) with its limits; routes that share an
    ///   origin share one budget with the strictest of their limits. Inactive configurations make no budget.
    package init(_ configurations: [(origin: String, configuration: OriginBudget.Configuration)], clock: PageProxyClock = .system) {
        var merged: [String: OriginBudget.Configuration] = [:]
        for (origin, configuration) in configurations where configuration.isActive {
            merged[origin] = merged[origin].map { $0.merged(with: configuration) } ?? configuration
        }
        budgets = merged.reduce(into: [:]) { result, entry in
            result[entry.key] = OriginBudget(origin: entry.key, configuration: entry.value, clock: clock)
        }
    }

    /// The budget of `origin`, or nil when none of its routes asks for one.
    package func budget(for origin: String) -> OriginBudget? {
        budgets[origin]
    }

    /// Every budget, by origin (for `/metrics`).
    package var all: [OriginBudget] {
        budgets.keys.sorted().compactMap { budgets[$0] }
    }
}

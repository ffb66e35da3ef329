/// A Prometheus histogram's state: bucket counts, sum and count.
struct Histogram: Sendable {
    /// Upper bounds in seconds, from 5 ms to 30 s: the range of an API page and of an aggregate.
    static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    /// Observations in each bucket alone (past the last bound: only in `count`); made cumulative when listed, so
    /// that an observation adds to one count, not to every bucket above it (one a request).
    private var counts = Array(repeating: 0, count: Histogram.bounds.count)
    private(set) var sum = 0.0
    private(set) var count = 0

    mutating func observe(_ seconds: Double) {
        if let index = Self.bounds.firstIndex(where: { seconds <= $0 }) {
            counts[index] += 1
        }
        sum += seconds
        count += 1
    }

    /// The cumulative count of each bucket, as exposed: observations at or under its bound.
    var cumulativeCounts: [Int] {
        var total = 0
        return counts.map { count in
            total += count
            return total
        }
    }

    /// The exposition lines for this histogram, with `labels` (already formatted, may be empty).
    func lines(name: String, labels: String) -> String {
        let prefix = labels.isEmpty ? "" : labels + ","
        var text = ""
        for (bound, cumulative) in zip(Self.bounds, cumulativeCounts) {
            text += "\(name)_bucket{\(prefix)le=\"\(bound)\"} \(cumulative)\n"
        }
        text += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(count)\n"
        let braces = labels.isEmpty ? "" : "{\(labels)}"
        text += "\(name)_sum\(braces) \(sum)\n"
        text += "\(name)_count\(braces) \(count)\n"
        return text
    }
}

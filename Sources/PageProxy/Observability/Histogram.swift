/// A Prometheus histogram's state: cumulative bucket counts, sum and count.
struct Histogram: Sendable {
    /// Upper bounds in seconds, from 5 ms to 30 s: the range of an API page and of an aggregate.
    static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

    private(set) var counts = Array(repeating: 0, count: Histogram.bounds.count)
    private(set) var sum = 0.0
    private(set) var count = 0

    mutating func observe(_ seconds: Double) {
        for (index, bound) in Self.bounds.enumerated() where seconds <= bound {
            counts[index] += 1
        }
        sum += seconds
        count += 1
    }

    /// The exposition lines for this histogram, with `labels` (already formatted, may be empty).
    func lines(name: String, labels: String) -> String {
        let prefix = labels.isEmpty ? "" : labels + ","
        var text = ""
        for (index, bound) in Self.bounds.enumerated() {
            text += "\(name)_bucket{\(prefix)le=\"\(bound)\"} \(counts[index])\n"
        }
        text += "\(name)_bucket{\(prefix)le=\"+Inf\"} \(count)\n"
        let braces = labels.isEmpty ? "" : "{\(labels)}"
        text += "\(name)_sum\(braces) \(sum)\n"
        text += "\(name)_count\(braces) \(count)\n"
        return text
    }
}

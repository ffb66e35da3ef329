import Foundation

/// A strict reader of the Prometheus text exposition format 0.0.4, for checking `/metrics` in tests.
struct PrometheusTextParser {
    struct Sample: Equatable {
        let name: String
        let labels: [String: String]
        let value: Double
    }

    struct Invalid: Error, CustomStringConvertible {
        let line: Int
        let reason: String
        var description: String { "line \(line): \(reason)" }
    }

    private(set) var types: [String: String] = [:]
    private(set) var samples: [Sample] = []

    init(_ text: String) throws {
        guard text.hasSuffix("\n") else { throw Invalid(line: 0, reason: "the text must end with a newline") }
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            let number = offset + 1
            if line.hasPrefix("#") {
                let words = line.split(separator: " ", maxSplits: 3).map(String.init)
                guard words.count >= 3, words[0] == "#" else { continue }
                guard Self.isMetricName(words[2]) else { throw Invalid(line: number, reason: "bad metric name \(words[2])") }
                if words[1] == "TYPE" {
                    guard words.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(words[3]) else {
                        throw Invalid(line: number, reason: "bad TYPE line")
                    }
                    guard types[words[2]] == nil else { throw Invalid(line: number, reason: "second TYPE for \(words[2])") }
                    guard !samples.contains(where: { Self.family(of: $0.name, in: [words[2]: words[3]]) == words[2] }) else {
                        throw Invalid(line: number, reason: "TYPE after samples of \(words[2])")
                    }
                    types[words[2]] = words[3]
                }
                continue
            }
            guard !line.isEmpty else { throw Invalid(line: number, reason: "empty line") }
            samples.append(try Self.sample(String(line), line: number))
        }
        for sample in samples {
            guard Self.family(of: sample.name, in: types) != nil else {
                throw Invalid(line: 0, reason: "sample \(sample.name) has no TYPE")
            }
        }
        try checkHistograms()
    }

    /// The value of the sample with this name and labels, if present.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    private static func sample(_ line: String, line number: Int) throws -> Sample {
        var rest = Substring(line)
        let name = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" })
        guard isMetricName(name) else { throw Invalid(line: number, reason: "bad sample name") }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = String(rest.prefix { $0 != "=" })
                guard isLabelName(label), labels[label] == nil else { throw Invalid(line: number, reason: "bad label name \(label)") }
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { throw Invalid(line: number, reason: "label without quoted value") }
                rest = rest.dropFirst(2)
                var value = ""
                while let character = rest.first, character != "\"" {
                    rest = rest.dropFirst()
                    if character == "\\" {
                        guard let escaped = rest.first, "\\\"n".contains(escaped) else { throw Invalid(line: number, reason: "bad escape") }
                        value.append(escaped == "n" ? "\n" : escaped)
                        rest = rest.dropFirst()
                    } else {
                        value.append(character)
                    }
                }
                guard rest.first == "\"" else { throw Invalid(line: number, reason: "unterminated label value") }
                rest = rest.dropFirst()
                labels[label] = value
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" {
                    throw Invalid(line: number, reason: "expected , or }")
                }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw Invalid(line: number, reason: "no space before the value") }
        let parts = rest.dropFirst().split(separator: " ")
        guard (1...2).contains(parts.count), let value = Double(parts[0]) ?? ["+Inf": .infinity, "-Inf": -.infinity, "NaN": .nan][String(parts[0])] else {
            throw Invalid(line: number, reason: "bad value")
        }
        return Sample(name: name, labels: labels, value: value)
    }

    /// Histogram buckets are cumulative and end with `le="+Inf"` equal to `_count`.
    private func checkHistograms() throws {
        for (family, type) in types where type == "histogram" {
            let buckets = samples.filter { $0.name == family + "_bucket" }
            let series = Set(buckets.map { $0.labels.filter { $0.key != "le" } })
            for labels in series {
                let values = buckets.filter { $0.labels.filter { $0.key != "le" } == labels }
                guard zip(values, values.dropFirst()).allSatisfy({ $0.value <= $1.value }) else {
                    throw Invalid(line: 0, reason: "\(family) buckets are not cumulative")
                }
                guard let last = values.last, last.labels["le"] == "+Inf", value(family + "_count", labels) == last.value,
                    value(family + "_sum", labels) != nil
                else { throw Invalid(line: 0, reason: "\(family) lacks +Inf, _count or _sum") }
            }
        }
    }

    private static func family(of sample: String, in types: [String: String]) -> String? {
        if types[sample] != nil { return sample }
        for suffix in ["_bucket", "_sum", "_count"] where sample.hasSuffix(suffix) {
            let base = String(sample.dropLast(suffix.count))
            if types[base] == "histogram" || types[base] == "summary" { return base }
        }
        return nil
    }

    private static func isMetricName(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" || first == ":" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ":") }
    }

    private static func isLabelName(_ name: String) -> Bool {
        guard let first = name.first, first.isLetter || first == "_" else { return false }
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }
}

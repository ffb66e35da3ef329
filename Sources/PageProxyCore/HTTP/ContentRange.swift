import Foundation

/// The complete length a `Content-Range` header states (RFC 9110 §14.4): `items 0-24/100` → 100, and PostgREST's
/// unit-less `0-24/100` on a 200 answer. It is the total of items an upstream says it has, read as `X-Total-Count`
/// is. A `bytes` range is about the body's bytes, not its items, and an unknown length (`0-24/*`) states nothing.
enum ContentRange {
    static let headerName = "Content-Range"

    /// The complete length of `value`, a Content-Range field value whose unit is not `bytes`; nil otherwise.
    static func completeLength(_ value: String) -> Int? {
        var text = Substring(value.trimmingCharacters(in: .whitespaces))
        if let space = text.firstIndex(of: " ") {
            guard text[..<space].lowercased() != "bytes" else { return nil }
            text = text[text.index(after: space)...].drop { $0 == " " }
        }
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, isRange(parts[0]) else { return nil }
        return Int(parts[1]).flatMap { $0 >= 0 ? $0 : nil } ?? StatedCount.digitsPastInt(parts[1])
    }

    /// `first-last` in digits (an unsatisfied range's `*` names no items, so no total either).
    private static func isRange(_ text: Substring) -> Bool {
        let ends = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        return ends.count == 2 && ends.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }
    }
}

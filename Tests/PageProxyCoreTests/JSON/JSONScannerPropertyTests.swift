import Foundation
import Testing

@testable import PageProxyCore

/// A deterministic generator of JSON documents (SplitMix64), writing each value both as laid out in the page
/// (with random whitespace) and compactly, as the scanner must splice it.
struct JSONDocumentGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    /// Whitespace between tokens: usually none, sometimes spaces, newlines and tabs.
    mutating func whitespace() -> String {
        switch below(6) {
        case 0: " "
        case 1: "\n  "
        case 2: pick(["\t", "\r\n", "  \n\t "])
        default: ""
        }
    }

    mutating func string() -> String {
        let pieces = [
            "a", "Zz", "hello world", " ", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9",
            "\\u2028", "\\uD83D\\uDE00", "\\ud834\\udd1e", "é", "€", "😀", "日本語", "\u{2028}", "\u{2029}", "[", "]",
            "{", "}", ",", ":", "\u{7F}", "0123456789abcdef",
        ]
        var text = "\""
        for _ in 0..<below(6) { text += pick(pieces) }
        return text + "\""
    }

    mutating func number() -> String {
        var text = below(3) == 0 ? "-" : ""
        text += below(4) == 0 ? "0" : String(1 + below(999_999))
        if below(3) == 0 { text += "." + String(below(1000)) }
        if below(5) == 0 { text += pick(["e", "E"]) + pick(["", "+", "-"]) + String(below(30)) }
        return text
    }

    /// One value: (as laid out in the page, compact).
    mutating func value(depth: Int) -> (String, String) {
        let kind = depth >= 4 ? below(4) : below(7)
        switch kind {
        case 0:
            let text = string()
            return (text, text)
        case 1:
            let text = number()
            return (text, text)
        case 2:
            let text = pick(["true", "false", "null"])
            return (text, text)
        case 3:
            let text = string()
            return (text, text)
        case 4, 5:
            var laidOut = "{" + whitespace()
            var compact = "{"
            for index in 0..<below(5) {
                if index > 0 {
                    laidOut += "," + whitespace()
                    compact += ","
                }
                let key = "\"k\(index)\(pick(["", "_id", " name", "\\u00e9", "\\\"q"]))\""
                let (member, memberCompact) = value(depth: depth + 1)
                let space = whitespace()
                laidOut += key + space + ":" + whitespace() + member + whitespace()
                compact += key + ":" + memberCompact
            }
            return (laidOut + "}", compact + "}")
        default:
            var laidOut = "[" + whitespace()
            var compact = "["
            for index in 0..<below(5) {
                if index > 0 {
                    laidOut += whitespace() + "," + whitespace()
                    compact += ","
                }
                let (element, elementCompact) = value(depth: depth + 1)
                laidOut += element
                compact += elementCompact
            }
            return (laidOut + whitespace() + "]", compact + "]")
        }
    }

    /// A page with its items under `data.items`: (document, items as laid out, items compact).
    mutating func page() -> (String, [String], [String]) {
        var laidOut: [String] = []
        var compact: [String] = []
        for _ in 0..<below(12) {
            let (item, itemCompact) = value(depth: 1)
            laidOut.append(item)
            compact.append(itemCompact)
        }
        let (meta, _) = value(depth: 2)
        let items = "[" + whitespace() + laidOut.joined(separator: whitespace() + "," + whitespace()) + whitespace() + "]"
        let document =
            whitespace() + "{" + whitespace() + "\"meta\":" + meta + "," + whitespace() + "\"data\"" + whitespace() + ":"
            + whitespace() + "{\"items\":" + whitespace() + items + whitespace() + ",\"n\":1}" + whitespace() + "}"
            + whitespace()
        return (document, laidOut, compact)
    }
}

@Suite struct JSONScannerPropertyTests {
    func parse(_ text: String) throws -> NSObject {
        try #require(
            JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) as? NSObject)
    }

    @Test func splicedItemsEqualTheGeneratorsItems() throws {
        var generator = JSONDocumentGenerator(seed: 0x5EED)
        var checkedItems = 0
        for round in 0..<400 {
            let (document, laidOut, compact) = generator.page()
            let bytes = Array(document.utf8)
            let page = try JSONScanner().scan(bytes, itemsAt: JSONPath("data.items")!, values: [JSONPath("data.n")!])
            #expect(page.values[JSONPath("data.n")!] == .number("1"))
            try #require(page.items.count == laidOut.count, "round \(round): \(document)")
            for (index, item) in page.items.enumerated() {
                #expect(String(decoding: bytes[item.range], as: UTF8.self) == laidOut[index])
                var output: [UInt8] = []
                JSONScanner.appendItem(item, of: bytes, to: &output)
                let spliced = String(decoding: output, as: UTF8.self)
                #expect(spliced == compact[index], "round \(round) item \(index)")
                #expect(!output.contains(0x0A))
                #expect(try parse(spliced) == parse(laidOut[index]), "round \(round) item \(index)")
                checkedItems += 1
            }
            // The whole page is accepted by Foundation too.
            _ = try parse(document)
        }
        #expect(checkedItems > 1000)
    }

    @Test func corruptingOneByteNeverCrashes() {
        var generator = JSONDocumentGenerator(seed: 42)
        let garbage: [UInt8] = [0x00, 0x0A, 0x22, 0x5C, 0x2C, 0x5D, 0x7D, 0x80, 0xC0, 0xFF, 0x2D, 0x3A, 0x20]
        for _ in 0..<300 {
            let (document, _, _) = generator.page()
            var bytes = Array(document.utf8)
            bytes[generator.below(bytes.count)] = generator.pick(garbage)
            // Either verdict is fine; Foundation must agree when the scanner accepts, except for a lone surrogate
            // escape (a pair cut by the corruption), which RFC 8259 §8.2 allows and Foundation refuses (attack11 L1).
            if scanError(bytes, items: "data.items") == nil {
                #expect(
                    (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
                        || Self.hasLoneSurrogateEscape(bytes))
            }
        }
    }

    /// Whether a document the scanner accepted (so a backslash is in a string) has a `\u` surrogate escape that is
    /// not half of a pair.
    private static func hasLoneSurrogateEscape(_ bytes: [UInt8]) -> Bool {
        func unit(at index: Int) -> UInt32? {
            guard index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
            return UInt32(String(decoding: bytes[(index + 2)..<(index + 6)], as: UTF8.self), radix: 16)
        }
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            guard let high = unit(at: index) else {
                index += 2
                continue
            }
            if high & 0xFC00 == 0xDC00 { return true }
            guard high & 0xFC00 == 0xD800 else {
                index += 6
                continue
            }
            guard let low = unit(at: index + 6), low & 0xFC00 == 0xDC00 else { return true }
            index += 12
        }
        return false
    }
}

// Splicing benchmark: JSONScanner.scan + appendItem against JSONSerialization parse + re-encode, and field
// selection (`_fields`, FieldSelection) against picking the same members from JSONSerialization's objects.
//
//     swift run -c release SpliceBench [repetitions] [--scanner-only] [--typical-only | --heavy-only]
//
// Builds ~100 realistic pages (100 items each, 50–200 KB, every fourth pretty-printed) and reports the
// median throughput over the repetitions, in MB/s of input (1 MB = 10^6 bytes).

import Foundation
import PageProxyCore

/// SplitMix64, so every run measures the same pages.
struct Random {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func pick(_ choices: [String]) -> String { choices[below(choices.count)] }
}

/// Writes JSON text compactly or pretty-printed (two-space indent, `" : "` like many upstreams).
struct Writer {
    var pretty: Bool
    var text = ""
    var level = 0
    var first = [true]

    mutating func newline() {
        guard pretty else { return }
        text += "\n" + String(repeating: "  ", count: level)
    }
    mutating func separator() {
        if first[first.count - 1] {
            first[first.count - 1] = false
        } else {
            text += ","
        }
        newline()
    }
    mutating func open(_ bracket: String) {
        text += bracket
        level += 1
        first.append(true)
    }
    mutating func close(_ bracket: String) {
        level -= 1
        let wasEmpty = first.removeLast()
        if !wasEmpty { newline() }
        text += bracket
    }
    mutating func key(_ name: String) {
        separator()
        text += "\"\(name)\"" + (pretty ? " : " : ":")
    }
    mutating func element() { separator() }
    mutating func raw(_ value: String) { text += value }
    mutating func string(_ value: String) { text += "\"\(value)\"" }
}

/// Mostly plain English with some accented, CJK, Cyrillic and emoji text and a few escapes, as in typical API text.
let typicalWords = [
    "the", "of", "and", "to", "in", "is", "for", "that", "with", "on", "as", "was", "by", "at", "from", "this",
    "account", "user", "service", "request", "response", "order", "customer", "payment", "invoice", "shipping",
    "update", "status", "project", "team", "release", "version", "support", "feature", "report", "summary",
    "product", "description", "available", "delivery", "quality", "performance", "network", "platform",
    "management", "analytics", "dashboard", "integration", "configuration", "documentation", "Straße", "café",
    "naïve", "日本語", "данные", "😀", #"\"quoted\""#, #"line\nbreak"#, #"https:\/\/example.com\/a?b=c"#, "München",
]
/// Unicode- and escape-heavy text: about half the words are non-ASCII or escaped.
let heavyWords = [
    "lorem", "ipsum", "dolor", "sit", "amet", "proxy", "page", "cursor", "Straße", "München", "naïve", "café",
    "日本語", "テキスト", "данные", "страница", "😀", "🚀", "✓", #"\"quoted\""#, #"back\\slash"#, #"line\nbreak"#,
    #"tab\there"#, #"\u00e9t\u00e9"#, #"\u2028"#, #"\ud83d\ude80"#, #"https:\/\/example.com\/a?b=c"#, "{not:json}",
    "[brackets]", "comma,separated",
]
let cities = ["Berlin", "München", "Zürich", "København", "Kraków", "東京", "São Paulo", "New York"]

func sentence(_ random: inout Random, _ words: [String], count: Int) -> String {
    (0..<count).map { _ in random.pick(words) }.joined(separator: " ")
}

func writeItem(_ w: inout Writer, id: Int, words: [String], random: inout Random) {
    w.element()
    w.open("{")
    w.key("id"); w.raw(String(id))
    w.key("uuid"); w.string(String(format: "%08x-%04x-4%03x-a%03x-%012llx", random.below(1 << 31), random.below(65536), random.below(4096), random.below(4096), random.next() & 0xFFFF_FFFF_FFFF))
    w.key("name"); w.string(sentence(&random, words, count: 2 + random.below(3)))
    w.key("email"); w.string("user\(id)@example.com")
    w.key("active"); w.raw(random.below(2) == 0 ? "true" : "false")
    w.key("score"); w.raw(String(Double(random.below(1_000_000)) / 1000))
    w.key("balance"); w.raw(random.below(5) == 0 ? "1.2345678901234567e+21" : "-\(random.below(99999)).\(random.below(100))")
    w.key("big"); w.raw("1234567890123456789\(random.below(10))")
    w.key("created_at"); w.string("2024-0\(1 + random.below(9))-1\(random.below(10))T12:\(10 + random.below(50)):00Z")
    w.key("parent"); w.raw(random.below(3) == 0 ? "null" : String(random.below(id + 1)))
    w.key("tags")
    w.open("[")
    for _ in 0..<random.below(6) { w.element(); w.string(random.pick(words)) }
    w.close("]")
    w.key("address")
    w.open("{")
    w.key("street"); w.string("\(random.below(200)) \(random.pick(words)) Street")
    w.key("city"); w.string(random.pick(cities))
    w.key("zip"); w.string(String(10000 + random.below(89999)))
    w.key("geo")
    w.open("{")
    w.key("lat"); w.raw(String(Double(random.below(180_000_000)) / 1_000_000 - 90))
    w.key("lng"); w.raw(String(Double(random.below(360_000_000)) / 1_000_000 - 180))
    w.close("}")
    w.close("}")
    w.key("counts")
    w.open("[")
    for _ in 0..<(3 + random.below(10)) { w.element(); w.raw(String(random.below(100_000))) }
    w.close("]")
    w.key("bio"); w.string(sentence(&random, words, count: 10 + random.below(160)))
    w.key("links")
    w.open("[")
    for k in 0..<random.below(4) {
        w.element()
        w.open("{")
        w.key("rel"); w.string(k == 0 ? "self" : "related")
        w.key("href"); w.string("https://api.example.com/v1/users/\(id)/\(k)")
        w.close("}")
    }
    w.close("]")
    w.close("}")
}

func makePage(_ index: Int, words: [String]) -> [UInt8] {
    var random = Random(state: UInt64(index) &* 7919 &+ 1)
    var w = Writer(pretty: index % 4 == 3)
    w.open("{")
    w.key("object"); w.string("list")
    w.key("data")
    w.open("[")
    for k in 0..<100 { writeItem(&w, id: index * 100 + k, words: words, random: &random) }
    w.close("]")
    w.key("has_more"); w.raw("true")
    w.key("response_metadata")
    w.open("{")
    w.key("next_cursor"); w.string("cursor-\(index + 1)")
    w.close("}")
    w.close("}")
    w.raw("\n")
    return Array(w.text.utf8)
}

// MARK: - Measurement

let repetitions = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 7 : 7
/// `--scanner-only` skips Foundation, for profiling.
let scannerOnly = CommandLine.arguments.contains("--scanner-only")
let itemsPath = JSONPath("data")!
let cursorPath = JSONPath("response_metadata.next_cursor")!

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Median and best MB/s of `body` over `repetitions` runs after one warm-up; `body` returns a checksum.
func measure(bytes: Int, repetitions: Int, _ body: () throws -> Int) throws -> (median: Double, best: Double, checksum: Int) {
    var checksum = try body()
    var rates: [Double] = []
    for _ in 0..<repetitions {
        let time = try seconds { checksum &+= try body() }
        rates.append(Double(bytes) / time / 1e6)
    }
    return (median(rates), rates.max()!, checksum)
}

struct PageSet {
    var name: String
    var pages: [[UInt8]]
    var data: [Data]
    var totalBytes: Int

    init(name: String, words: [String]) {
        self.name = name
        pages = (0..<100).map { makePage($0, words: words) }
        data = pages.map { Data($0) }
        totalBytes = pages.reduce(0) { $0 + $1.count }
    }

    var summary: String {
        let sizes = pages.map(\.count).sorted()
        return "\(name): \(pages.count) pages, \(pages.count * 100) items, "
            + "\(String(format: "%.1f", Double(totalBytes) / 1e6)) MB, page size \(sizes.first! / 1000)–\(sizes.last! / 1000) KB "
            + "(median \(sizes[sizes.count / 2] / 1000) KB), \(pages.count / 4) pretty-printed"
    }

    func scanOnly() throws -> Int {
        let scanner = JSONScanner()
        var checksum = 0
        for bytes in pages {
            let page = try scanner.scan(bytes, itemsAt: itemsPath, values: [cursorPath])
            checksum &+= page.items.count
        }
        return checksum
    }

    func scanAndSplice() throws -> Int {
        let scanner = JSONScanner()
        var output: [UInt8] = []
        output.reserveCapacity(1 << 20)
        var checksum = 0
        for bytes in pages {
            let page = try scanner.scan(bytes, itemsAt: itemsPath, values: [cursorPath])
            output.removeAll(keepingCapacity: true)
            output.append(UInt8(ascii: "["))
            for (index, item) in page.items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONScanner.appendItem(item, of: bytes, to: &output)
            }
            output.append(UInt8(ascii: "]"))
            checksum &+= output.count
        }
        return checksum
    }

    func foundation() throws -> Int {
        var checksum = 0
        for page in data {
            let object = try JSONSerialization.jsonObject(with: page)
            guard let root = object as? [String: Any], let items = root["data"] as? [Any] else { fatalError("no data") }
            checksum &+= try JSONSerialization.data(withJSONObject: items).count
        }
        return checksum
    }

    /// `_fields=id,name,address.city,address.geo.lat`: the selected members of each item, byte for byte.
    static let selection = try! FieldSelection(parsing: "id,name,address.city,address.geo.lat")

    func scanAndSelect() throws -> Int {
        let scanner = JSONScanner()
        var output: [UInt8] = []
        output.reserveCapacity(1 << 20)
        var checksum = 0
        for bytes in pages {
            let scanned = try scanner.scan(bytes, itemsAt: itemsPath, values: [cursorPath])
            let page = Page(
                number: 1, url: Self.url, status: .ok, headers: HTTPHeaders(), body: bytes, items: scanned.items, values: scanned.values)
            output.removeAll(keepingCapacity: true)
            var framing = MergedJSONBody()
            framing.append(Self.selection.project(page), to: &output)
            output += framing.closing()
            checksum &+= output.count
        }
        return checksum
    }

    static let url = PageURL(string: "http://api.example.com/v1/users")!

    /// The same selection done on Foundation's objects: parse, pick, encode again.
    func foundationSelect() throws -> Int {
        var checksum = 0
        for page in data {
            checksum &+= try JSONSerialization.data(withJSONObject: Self.foundationSelection(page)).count
        }
        return checksum
    }

    static func foundationSelection(_ page: Data) throws -> [[String: Any]] {
        guard let root = try JSONSerialization.jsonObject(with: page) as? [String: Any], let items = root["data"] as? [[String: Any]] else {
            fatalError("no data")
        }
        return items.map { item in
            var picked: [String: Any] = ["id": item["id"]!, "name": item["name"]!]
            if let address = item["address"] as? [String: Any] {
                var kept: [String: Any] = ["city": address["city"]!]
                if let geo = address["geo"] as? [String: Any] { kept["geo"] = ["lat": geo["lat"]!] }
                picked["address"] = kept
            }
            return picked
        }
    }

    /// The spliced items of every page parse to the same values as Foundation's, and so do the selected ones.
    func check() throws {
        let scanner = JSONScanner()
        for (bytes, data) in zip(pages, data) {
            let page = try scanner.scan(bytes, itemsAt: itemsPath, values: [cursorPath])
            var spliced: [UInt8] = [UInt8(ascii: "[")]
            for (index, item) in page.items.enumerated() {
                if index > 0 { spliced.append(UInt8(ascii: ",")) }
                JSONScanner.appendItem(item, of: bytes, to: &spliced)
            }
            spliced.append(UInt8(ascii: "]"))
            let ours = try JSONSerialization.jsonObject(with: Data(spliced)) as? NSArray
            let theirs = (try JSONSerialization.jsonObject(with: data) as? NSDictionary)?["data"] as? NSArray
            precondition(ours != nil && ours == theirs && ours?.count == 100, "spliced items differ from Foundation's")
            let selected = Self.selection.project(
                Page(number: 1, url: Self.url, status: .ok, headers: HTTPHeaders(), body: bytes, items: page.items, values: [:]))
            var framing = MergedJSONBody()
            var output: [UInt8] = []
            framing.append(selected, to: &output)
            output += framing.closing()
            let oursSelected = try JSONSerialization.jsonObject(with: Data(output)) as? NSArray
            let theirsSelected = try Self.foundationSelection(data) as NSArray
            precondition(oursSelected == theirsSelected, "selected fields differ from Foundation's")
        }
    }
}

/// `--typical-only` and `--heavy-only` measure one set of pages, for profiling.
let sets = CommandLine.arguments.contains("--heavy-only")
    ? [PageSet(name: "unicode/escape-heavy text", words: heavyWords)]
    : CommandLine.arguments.contains("--typical-only")
    ? [PageSet(name: "typical text", words: typicalWords)]
    : [PageSet(name: "typical text", words: typicalWords), PageSet(name: "unicode/escape-heavy text", words: heavyWords)]
var rows: [String] = []
var checksum = 0
for set in sets {
    print(set.summary)
    if !scannerOnly { try set.check() }
    let scan = try measure(bytes: set.totalBytes, repetitions: repetitions, set.scanOnly)
    let splice = try measure(bytes: set.totalBytes, repetitions: repetitions, set.scanAndSplice)
    let select = try measure(bytes: set.totalBytes, repetitions: repetitions, set.scanAndSelect)
    let foundation = scannerOnly
        ? (median: Double.nan, best: Double.nan, checksum: 0)
        : try measure(bytes: set.totalBytes, repetitions: max(3, repetitions / 2), set.foundation)
    let foundationSelect = scannerOnly
        ? (median: Double.nan, best: Double.nan, checksum: 0)
        : try measure(bytes: set.totalBytes, repetitions: max(3, repetitions / 2), set.foundationSelect)
    checksum &+= scan.checksum &+ splice.checksum &+ foundation.checksum &+ select.checksum &+ foundationSelect.checksum
    func row(_ method: String, _ rate: (median: Double, best: Double, checksum: Int), peer: Double = foundation.median) -> String {
        "| \(set.name) | \(method) | \(String(format: "%.0f", rate.median)) | \(String(format: "%.0f", rate.best)) | "
            + "\(String(format: "%.1f×", rate.median / peer)) |"
    }
    rows.append(row("JSONScanner.scan (validate, find items)", scan))
    rows.append(row("JSONScanner.scan + appendItem (splice)", splice))
    rows.append(row("JSONSerialization.jsonObject + data", foundation))
    rows.append(row("scan + FieldSelection.project (4 fields, 2 nested)", select, peer: foundationSelect.median))
    rows.append(row("JSONSerialization.jsonObject, pick 4 fields, data", foundationSelect, peer: foundationSelect.median))
}
print("repetitions: \(repetitions) (Foundation: \(max(3, repetitions / 2))), MB = 10^6 bytes of input\n")
print("| pages | method | median MB/s | best MB/s | vs Foundation |")
print("|---|---|---:|---:|---:|")
rows.forEach { print($0) }
print("\nchecksum: \(checksum)")

import Foundation

/// Scans arbitrary bytes for items at a few paths and checks the scanner against a reference:
/// - whatever the scanner accepts is JSON by RFC 8259 (`ReferenceJSON` below), and every spliced item is too;
/// - a valid array no deeper than the scanner's limit is accepted at the root;
/// - Foundation agrees whenever every number fits a Double. Our scanner passes numbers of any size through unchanged
///   (`1e400`), which Foundation refuses, so Foundation is a second opinion only on inputs it can represent.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONScanner(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let maxDepth = 64
    let reference = ReferenceJSON.check(bytes)
    if reference.isValid, reference.depth < maxDepth, reference.rootIsArray {
        precondition(
            (try? JSONScanner(maxDepth: maxDepth).scan(bytes, itemsAt: .root, values: [])) != nil,
            "the scanner rejected a valid array")
    }
    let paths = [JSONPath.root, JSONPath("data")!, JSONPath("a.b")!]
    for path in paths {
        guard let page = try? JSONScanner(maxDepth: maxDepth).scan(bytes, itemsAt: path, values: [JSONPath("next")!]) else { continue }
        precondition(reference.isValid, "the scanner accepted what RFC 8259 rejects")
        expectFoundationAccepts(bytes, reference, "the scanner accepted what Foundation rejects")
        for item in page.items {
            var spliced: [UInt8] = []
            JSONScanner.appendItem(item, of: bytes, to: &spliced)
            precondition(!spliced.contains(UInt8(ascii: "\n")), "a spliced item holds a raw newline")
            let itemReference = ReferenceJSON.check(spliced)
            precondition(itemReference.isValid, "a spliced item is not JSON on its own")
            expectFoundationAccepts(spliced, itemReference, "a spliced item is not JSON to Foundation")
        }
    }
    return 0
}

private func expectFoundationAccepts(_ bytes: [UInt8], _ reference: ReferenceJSON.Verdict, _ message: String) {
    guard reference.numbersFitDouble else { return }
    precondition((try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil, message)
}

/// A deliberately plain RFC 8259 validator, written apart from the scanner so that the two can disagree: recursive
/// descent, UTF-8 checked by the standard library, `\u` surrogates paired (RFC 8259 §8.2; the scanner refuses lone
/// ones too).
private struct ReferenceJSON {
    struct Verdict {
        var isValid: Bool
        var depth = 0
        var rootIsArray = false
        var numbersFitDouble = true
    }

    private struct Invalid: Error {}

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private var maxDepth = 0
    private var numbersFitDouble = true

    static func check(_ bytes: [UInt8]) -> Verdict {
        guard String(validating: bytes, as: UTF8.self) != nil else { return Verdict(isValid: false) }
        var parser = ReferenceJSON(bytes: bytes)
        do {
            parser.skipWhitespace()
            let rootIsArray = parser.peek == UInt8(ascii: "[")
            try parser.value()
            parser.skipWhitespace()
            guard parser.index == bytes.count else { throw Invalid() }
            return Verdict(isValid: true, depth: parser.maxDepth, rootIsArray: rootIsArray, numbersFitDouble: parser.numbersFitDouble)
        } catch {
            return Verdict(isValid: false)
        }
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func next() throws(Invalid) -> UInt8 {
        guard let byte = peek else { throw Invalid() }
        index += 1
        return byte
    }

    private mutating func expect(_ text: String) throws(Invalid) {
        for byte in text.utf8 where try next() != byte { throw Invalid() }
    }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func value() throws(Invalid) {
        switch peek {
        case UInt8(ascii: "{"): try container(close: UInt8(ascii: "}"), isObject: true)
        case UInt8(ascii: "["): try container(close: UInt8(ascii: "]"), isObject: false)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try expect("true")
        case UInt8(ascii: "f"): try expect("false")
        case UInt8(ascii: "n"): try expect("null")
        default: try number()
        }
    }

    private mutating func container(close: UInt8, isObject: Bool) throws(Invalid) {
        index += 1
        depth += 1
        maxDepth = max(maxDepth, depth)
        // Inputs are at most a few KB; this bound only keeps the recursion off the end of the stack.
        guard depth <= 1024 else { throw Invalid() }
        skipWhitespace()
        if peek == close {
            index += 1
            depth -= 1
            return
        }
        while true {
            if isObject {
                guard peek == UInt8(ascii: "\"") else { throw Invalid() }
                try string()
                skipWhitespace()
                try expect(":")
                skipWhitespace()
            }
            try value()
            skipWhitespace()
            let byte = try next()
            if byte == close { break }
            guard byte == UInt8(ascii: ",") else { throw Invalid() }
            skipWhitespace()
        }
        depth -= 1
    }

    private mutating func string() throws(Invalid) {
        index += 1
        while true {
            let byte = try next()
            if byte == UInt8(ascii: "\"") { return }
            guard byte >= 0x20 else { throw Invalid() }
            guard byte == UInt8(ascii: "\\") else { continue }
            let escape = try next()
            if "\"\\/bfnrt".utf8.contains(escape) { continue }
            guard escape == UInt8(ascii: "u") else { throw Invalid() }
            let unit = try hex4()
            if (0xDC00...0xDFFF).contains(unit) { throw Invalid() }
            if (0xD800...0xDBFF).contains(unit) {
                try expect("\\u")
                guard (0xDC00...0xDFFF).contains(try hex4()) else { throw Invalid() }
            }
        }
    }

    private mutating func hex4() throws(Invalid) -> Int {
        var value = 0
        for _ in 0..<4 {
            guard let digit = Int(String(UnicodeScalar(try next())), radix: 16) else { throw Invalid() }
            value = value * 16 + digit
        }
        return value
    }

    private mutating func number() throws(Invalid) {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        if peek == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { throw Invalid() }
        }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw Invalid() }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw Invalid() }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if Double(text)?.isFinite != true { numbersFitDouble = false }
    }

    private mutating func digits() -> Int {
        var count = 0
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            index += 1
            count += 1
        }
        return count
    }
}

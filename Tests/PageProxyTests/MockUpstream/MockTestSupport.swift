import Foundation
@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// Test-side helpers: a byte-level scanner for the mock's compact JSON (it keeps raw value
/// bytes, so items compare byte for byte), and request shorthands.
enum MockTestSupport {
    static let host = "localhost:8080"
    static let origin = "http://localhost:8080"

    /// GETs (or other method) `target` with the test Host header.
    static func send(
        _ mock: MockUpstream, _ target: String, method: String = "GET", host: String = host,
        headers: [(name: String, value: String)] = []
    ) async -> MockResponse {
        await mock.respond(to: MockRequest(method: method, target: target, headers: [(name: "Host", value: host)] + headers))
    }

    /// The body as a String (for readable expectations).
    static func text(_ response: MockResponse) -> String {
        String(decoding: response.body, as: UTF8.self)
    }

    /// "http://localhost:8080/p?q" → "/p?q"; relative targets pass through; nil for another origin.
    static func target(fromLink link: String) -> String? {
        if link.hasPrefix("/") { return link }
        guard link.hasPrefix(origin + "/") else { return nil }
        return String(link.dropFirst(origin.count))
    }

    /// The URL of relation `rel` in a Link header value.
    static func link(_ header: String?, rel: String) -> String? {
        guard let header else { return nil }
        for part in header.components(separatedBy: ", ") {
            let pieces = part.components(separatedBy: ">; rel=")
            if pieces.count == 2, pieces[1] == "\"\(rel)\"", pieces[0].hasPrefix("<") {
                return String(pieces[0].dropFirst())
            }
        }
        return nil
    }

    // MARK: Byte-level JSON scanning

    /// The index just past the JSON value starting at `start`.
    static func skipValue(_ bytes: ArraySlice<UInt8>, from start: Int) -> Int {
        var index = start
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return skipString(bytes, from: index)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.endIndex {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    index = skipString(bytes, from: index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default:
                    break
                }
                index += 1
            }
            return index
        default:
            while index < bytes.endIndex,
                ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]")].contains(bytes[index]) {
                index += 1
            }
            return index
        }
    }

    private static func skipString(_ bytes: ArraySlice<UInt8>, from start: Int) -> Int {
        var index = start + 1
        while index < bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return index
    }

    /// The raw bytes of each element of a compact JSON array.
    static func elements(_ array: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        guard array.first == UInt8(ascii: "["), array.last == UInt8(ascii: "]") else { return [] }
        var result: [ArraySlice<UInt8>] = []
        var index = array.startIndex + 1
        while index < array.endIndex - 1 {
            let end = skipValue(array, from: index)
            result.append(array[index..<end])
            index = end + 1  // skip ","
        }
        return result
    }

    /// `bytes` without the whitespace between tokens (MLflow's and localstripe's indented bodies), so that
    /// `members` can read them.
    static func compacted(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                (escaped, inString) = (!escaped && byte == UInt8(ascii: "\\"), escaped || byte != UInt8(ascii: "\""))
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if [UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t")].contains(byte) {
                continue
            }
            output.append(byte)
        }
        return output
    }

    /// The members of a compact JSON object: key → raw value bytes.
    static func members(_ object: ArraySlice<UInt8>) -> [String: ArraySlice<UInt8>] {
        guard object.first == UInt8(ascii: "{"), object.last == UInt8(ascii: "}") else { return [:] }
        var result: [String: ArraySlice<UInt8>] = [:]
        var index = object.startIndex + 1
        while index < object.endIndex - 1 {
            let keyEnd = skipValue(object, from: index)
            let key = string(object[index..<keyEnd]) ?? ""
            let valueStart = keyEnd + 1  // skip ":"
            let valueEnd = skipValue(object, from: valueStart)
            result[key] = object[valueStart..<valueEnd]
            index = valueEnd + 1
        }
        return result
    }

    static func members(_ bytes: [UInt8]) -> [String: ArraySlice<UInt8>] {
        members(bytes[...])
    }

    /// A JSON string value decoded; nil for `null` or anything else.
    static func string(_ raw: ArraySlice<UInt8>?) -> String? {
        guard let raw, raw.first == UInt8(ascii: "\"") else { return nil }
        return try? JSONDecoder().decode(String.self, from: Data(raw))
    }

    /// A JSON integer value; nil otherwise.
    static func int(_ raw: ArraySlice<UInt8>?) -> Int? {
        raw.flatMap { Int(String(decoding: $0, as: UTF8.self)) }
    }

    /// The raw text of a value ("true", "null", …).
    static func raw(_ raw: ArraySlice<UInt8>?) -> String? {
        raw.map { String(decoding: $0, as: UTF8.self) }
    }
}

import Foundation


/// Scans arbitrary bytes for items at a few paths. Whatever the scanner accepts must be valid JSON to Foundation,
/// and every spliced item must parse on its own.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONScanner(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let paths = [JSONPath.root, JSONPath("data")!, JSONPath("a.b")!]
    for path in paths {
        guard let page = try? JSONScanner(maxDepth: 64).scan(bytes, itemsAt: path, values: [JSONPath("next")!]) else { continue }
        precondition(
            (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil,
            "the scanner accepted what Foundation rejects")
        for item in page.items {
            var spliced: [UInt8] = []
            JSONScanner.appendItem(item, of: bytes, to: &spliced)
            precondition(!spliced.contains(UInt8(ascii: "\n")), "a spliced item holds a raw newline")
            precondition(
                (try? JSONSerialization.jsonObject(with: Data(spliced), options: [.fragmentsAllowed])) != nil,
                "a spliced item is not JSON on its own")
        }
    }
    return 0
}

import Foundation
import Testing
@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// The dataset's shape: sizes, variety, compactness, determinism.
@Suite struct MockDatasetTests {
    @Test func itemsAreSizedAndNumbered() {
        for index in 0..<10_000 {
            let item = MockDataset.item(index)
            #expect((150...300).contains(item.count), "item \(index) has \(item.count) bytes")
            #expect(item.starts(with: Array(#"{"id":\#(index + 1),"name":"item-\#(index + 1)","#.utf8)))
        }
    }

    @Test func itemsAreDeterministic() {
        #expect(MockDataset.item(41) == MockDataset.item(41))
        #expect(MockDataset.items(total: 30) == MockDataset.items(total: 60).prefix(30).map { $0 })
        #expect(MockDataset.items(total: 0).isEmpty)
    }

    @Test func everySeventhHasEscapesAndRawUTF8() {
        let escapes = #"a\"b\\c\nd\u00e9 \u2028 \ud83d\ude00 é😀"#
        for id in 1...100 {
            let text = String(decoding: MockDataset.item(id - 1), as: UTF8.self)
            #expect(text.contains(escapes) == (id % 7 == 0), "id \(id)")
        }
        let item = MockDataset.item(6)
        #expect(item.contains(0xC3))  // é raw
        #expect(item.contains(0xF0))  // 😀 raw
        let object = try? JSONSerialization.jsonObject(with: Data(item)) as? [String: Any]
        #expect(object?["text"] as? String == "a\"b\\c\nd\u{e9} \u{2028} \u{1F600} é😀")
    }

    @Test func everyEleventhHasBigNumbers() {
        let numbers = #""big":12345678901234567890,"huge":1e400,"nz":-0.0"#
        for id in 1...100 {
            let text = String(decoding: MockDataset.item(id - 1), as: UTF8.self)
            #expect(text.contains(numbers) == (id % 11 == 0), "id \(id)")
        }
    }

    @Test func itemsHaveNestedObjectArrayAndNonAlphabeticalKeys() {
        for index in 0..<50 {
            let members = MockTestSupport.members(MockDataset.item(index))
            #expect(members["price"]?.first == UInt8(ascii: "{"))
            #expect(members["tags"]?.first == UInt8(ascii: "["))
            #expect(MockTestSupport.int(members["id"]) == index + 1)
        }
        let text = String(decoding: MockDataset.item(0), as: UTF8.self)
        let keys = ["\"id\"", "\"name\"", "\"kind\"", "\"price\"", "\"tags\"", "\"active\""]
        let positions = keys.compactMap { text.range(of: $0)?.lowerBound }
        #expect(positions == positions.sorted())
        #expect(keys.map { $0 } != keys.sorted())
    }

    @Test func itemsAreCompactAndValidJSON() {
        for index in 0..<154 {
            let item = MockDataset.item(index)
            var inString = false
            var escaped = false
            for byte in item {
                if inString {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else {
                    #expect(![UInt8(ascii: " "), 0x0A, 0x0D, 0x09].contains(byte), "whitespace in item \(index)")
                }
            }
            #expect(MockTestSupport.skipValue(item[...], from: 0) == item.count)
            if (index + 1) % 11 != 0 {
                #expect((try? JSONSerialization.jsonObject(with: Data(item))) != nil, "item \(index)")
            }
        }
    }

    @Test func mergedAndNDJSON() {
        #expect(String(decoding: MockDataset.mergedJSON(total: 0), as: UTF8.self) == "[]")
        #expect(MockDataset.mergedJSON(total: 2) == [UInt8(ascii: "[")] + MockDataset.item(0) + [UInt8(ascii: ",")] + MockDataset.item(1) + [UInt8(ascii: "]")])
        #expect(MockDataset.ndjson(total: 0).isEmpty)
        #expect(MockDataset.ndjson(total: 2) == MockDataset.item(0) + [0x0A] + MockDataset.item(1) + [0x0A])
        #expect(MockDataset.page(offset: 3, count: 2, total: 10) == [UInt8(ascii: "[")] + MockDataset.item(3) + [UInt8(ascii: ",")] + MockDataset.item(4) + [UInt8(ascii: "]")])
    }
}

import Testing

@testable import PageProxyCore

/// An item's position: what the scanner found, in eight bytes (attack5 F3: a page of tiny items held 24 bytes of
/// positions for every 2 bytes of page).
@Suite struct JSONItemTests {
    @Test("an item is eight bytes: a million-item page's positions take 8 MB, not 24")
    func eightBytesAnItem() {
        #expect(MemoryLayout<JSONItem>.stride == 8)
        var items: [JSONItem] = []
        items.reserveCapacity(1_000_000)
        #expect(items.capacity * MemoryLayout<JSONItem>.stride <= 8_100_000)
    }

    @Test("the range and the compact flag read back as given, up to the largest offset", arguments: [false, true])
    func rangeAndFlagRoundTrip(compact: Bool) {
        for range in [0..<0, 0..<1, 17..<4_096, 1_073_741_824..<JSONItem.maxOffset, JSONItem.maxOffset..<JSONItem.maxOffset] {
            var item = JSONItem(range: range, isCompact: compact)
            #expect(item.range == range)
            #expect(item.isCompact == compact)
            item.isCompact.toggle()
            #expect(item.range == range)
            #expect(item.isCompact == !compact)
            item.range = 5..<9
            #expect(item.range == 5..<9)
            #expect(item.isCompact == !compact)
        }
    }

    @Test("a page of a hundred thousand tiny items scans to the same positions as before")
    func tinyItemsScan() throws {
        let count = 100_000
        let body = Array(("[" + Array(repeating: "0", count: count).joined(separator: ",") + "]").utf8)
        let page = try JSONScanner().scan(body, itemsAt: JSONPath(components: []))
        #expect(page.items.count == count)
        #expect(page.items.allSatisfy { $0.range.count == 1 && $0.isCompact && body[$0.range.lowerBound] == UInt8(ascii: "0") })
        #expect(page.items.last?.range == (2 * count - 1)..<(2 * count))
    }

    @Test("a document past the largest offset is refused by name, not located wrong")
    func tooLargeIsNamed() {
        let error = JSONScanError.tooLarge(limit: JSONItem.maxOffset)
        #expect(error.offset == nil)
        #expect(error.description == "a document of more than 2147483647 bytes is too large to scan for items")
    }
}

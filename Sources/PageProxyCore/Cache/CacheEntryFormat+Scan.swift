/// The scan section of an entry's header (format version 2): the `StoredScan` of the body, if any.
///
/// ```
/// present (1): 0, or 1 followed by
///   signature (8), item count (4), per item: start (4), end (4), compact (1),
///   value count (2), per value: path index (2), kind (1), then by kind:
///     0 string, 1 number: UTF-8 length (4) and bytes;  2 false, 3 true, 4 null: nothing;
///     5 object: start (4), end (4);  6 array: start (4), end (4), element count (4)
/// ```
/// Every range is checked against the body's length when read, so a scan can never point outside its body.
extension CacheEntryFormat {
    static func appendScan(_ scan: StoredScan?, bodyCount: Int, to writer: inout ByteWriter) {
        // Offsets are 32-bit; a body past 4 GiB (far above any page limit) is simply stored without its scan.
        guard let scan, bodyCount <= Int(UInt32.max), scan.values.count <= Int(UInt16.max) else {
            writer.append(UInt8(0))
            return
        }
        writer.append(UInt8(1))
        writer.append(scan.signature)
        writer.append(UInt32(scan.items.count))
        for item in scan.items {
            writer.append(UInt32(item.range.lowerBound))
            writer.append(UInt32(item.range.upperBound))
            writer.append(UInt8(item.isCompact ? 1 : 0))
        }
        writer.append(UInt16(scan.values.count))
        for (index, value) in scan.values.sorted(by: { $0.key < $1.key }) {
            writer.append(UInt16(clamping: index))
            switch value {
            case .string(let text):
                writer.append(UInt8(0))
                writer.appendString32(text)
            case .number(let text):
                writer.append(UInt8(1))
                writer.appendString32(text)
            case .bool(let flag): writer.append(UInt8(flag ? 3 : 2))
            case .null: writer.append(UInt8(4))
            case .object(let range):
                writer.append(UInt8(5))
                writer.append(UInt32(range.lowerBound))
                writer.append(UInt32(range.upperBound))
            case .array(let range, let count):
                writer.append(UInt8(6))
                writer.append(UInt32(range.lowerBound))
                writer.append(UInt32(range.upperBound))
                writer.append(UInt32(clamping: count))
            }
        }
    }

    /// - Parameter body: the body, to work out whether the items are a comma run; nil when it is not in memory (then
    ///   that is worked out from the items' places alone: `StoredScan.isAdjacentRun`).
    static func readScan(_ reader: inout ByteReader, bodyCount: Int, body: [UInt8]?) throws(Invalid) -> StoredScan? {
        guard let present = reader.uint8() else { throw .badHeader }
        guard present == 1 else {
            guard present == 0 else { throw .badHeader }
            return nil
        }
        // Items record 31-bit offsets (`JSONItem`): a larger body (a tampered file; pages are at most 1 GiB) is no entry.
        guard let signature = reader.uint64(), let itemCount = reader.uint32(), Int(itemCount) <= (reader.end - reader.offset) / 9,
            bodyCount <= JSONItem.maxOffset
        else { throw .badHeader }
        var items: [JSONItem] = []
        items.reserveCapacity(Int(itemCount))
        for _ in 0..<itemCount {
            guard let range = readRange(&reader, bodyCount: bodyCount), let compact = reader.uint8() else { throw .badHeader }
            items.append(JSONItem(range: range, isCompact: compact == 1))
        }
        guard let valueCount = reader.uint16() else { throw .badHeader }
        var values: [Int: JSONValue] = [:]
        for _ in 0..<valueCount {
            guard let index = reader.uint16(), let kind = reader.uint8() else { throw .badHeader }
            let value: JSONValue?
            switch kind {
            case 0: value = reader.string32().map(JSONValue.string)
            case 1: value = reader.string32().map(JSONValue.number)
            case 2, 3: value = .bool(kind == 3)
            case 4: value = .null
            case 5: value = readRange(&reader, bodyCount: bodyCount).map(JSONValue.object)
            case 6:
                guard let range = readRange(&reader, bodyCount: bodyCount), let count = reader.uint32() else { throw .badHeader }
                value = .array(range, count: Int(count))
            default: value = nil
            }
            guard let value else { throw .badHeader }
            values[Int(index)] = value
        }
        guard let body else {
            var scan = StoredScan(signature: signature, items: items, values: values)
            scan.isCommaRun = StoredScan.isAdjacentRun(items)
            return scan
        }
        return StoredScan(signature: signature, items: items, values: values, body: body)
    }

    /// A byte range of the body: start and end (4 each), in order and within `bodyCount`.
    private static func readRange(_ reader: inout ByteReader, bodyCount: Int) -> Range<Int>? {
        guard let start = reader.uint32(), let end = reader.uint32(), start <= end, Int(end) <= bodyCount else { return nil }
        return Int(start)..<Int(end)
    }
}

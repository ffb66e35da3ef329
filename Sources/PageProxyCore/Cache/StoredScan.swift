/// A page's scan as its cache entry keeps it: where each item lies in the body and the values found, for the
/// `ScanPaths` whose signature it carries. The entry's checksums cover it, so it is as trustworthy as the body.
package struct StoredScan: Sendable, Equatable {
    package var signature: UInt64
    package var items: [JSONItem]
    /// The values found, by the index of their path in the `ScanPaths`' `valuePaths`.
    package var values: [Int: JSONValue]
    /// Whether the items are one run of the body joined by single commas (`Page.storedIsCommaRun`), worked out while
    /// the body was at hand (stored or read and verified); nil when it was not. Not part of the scan's identity: it
    /// follows from the items and the body.
    package var isCommaRun: Bool?

    /// - Parameter body: the page's body, to work out `isCommaRun` (nil: left unknown).
    package init(signature: UInt64, items: [JSONItem], values: [Int: JSONValue], body: [UInt8]? = nil) {
        self.signature = signature
        self.items = items
        self.values = values
        isCommaRun = body.map { Page.contiguousRun(of: items, in: $0, separatedBy: UInt8(ascii: ",")) != nil }
    }

    /// Whether `items` are one comma run without looking at the body: each compact and one byte after the one before.
    /// In a page's array (the items of a scan of a body that was valid JSON, and is checked against that body's XXH64)
    /// the one byte between two elements can only be `,`: the run `Page.contiguousRun` would find. For a body not kept
    /// in memory (`BodyInFile`).
    package static func isAdjacentRun(_ items: [JSONItem]) -> Bool {
        guard let first = items.first, first.isCompact else { return false }
        var end = first.range.upperBound
        for item in items.dropFirst() {
            guard item.isCompact, item.range.lowerBound == end + 1 else { return false }
            end = item.range.upperBound
        }
        return true
    }

    /// The scan of a page for `paths`.
    package init(_ page: ScannedPage, for paths: ScanPaths, body: [UInt8]? = nil) {
        var values: [Int: JSONValue] = [:]
        for (index, path) in paths.valuePaths.enumerated() {
            if let value = page.values[path] { values[index] = value }
        }
        self.init(signature: paths.signature, items: page.items, values: values, body: body)
    }

    package static func == (left: StoredScan, right: StoredScan) -> Bool {
        left.signature == right.signature && left.items == right.items && left.values == right.values
    }

    /// The scanned page, if this scan was made for `paths`; nil otherwise (the page must be scanned again).
    package func page(for paths: ScanPaths) -> ScannedPage? {
        guard signature == paths.signature else { return nil }
        var found: [JSONPath: JSONValue] = [:]
        for (index, value) in values where index < paths.valuePaths.count {
            found[paths.valuePaths[index]] = value
        }
        return ScannedPage(items: items, values: found)
    }
}

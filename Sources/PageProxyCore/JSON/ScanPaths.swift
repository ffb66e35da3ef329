/// What a page is scanned for: the items path and the value paths of a walk, and a signature that names them.
///
/// A page's scan is stored with its cache entry (issue 13: a hit is not scanned again) and reused only by a walk
/// whose paths have the same signature; any other walk scans the page itself.
package struct ScanPaths: Sendable, Equatable {
    package let itemsPath: JSONPath
    package let valuePaths: [JSONPath]
    /// A hash of every component of every path, each length-prefixed and tagged, so that no two different lists of
    /// paths are written alike; with a version, so that a scanner that reports differently can retire old scans.
    package let signature: UInt64

    /// How pages are read (bumped when the same bytes would give other items or values): in every scan's signature
    /// and in every aggregate ETag's shape, so neither outlives a change of reading (review14 F8).
    package static let version = "scan-v2"

    package init(itemsPath: JSONPath, valuePaths: [JSONPath]) {
        self.itemsPath = itemsPath
        self.valuePaths = valuePaths
        // v2: a repeated key's last occurrence wins (loose12); scans stored by v1 took the first.
        var text: [UInt8] = Array(Self.version.utf8)
        func add(_ part: String, tag: UInt8) {
            text.append(tag)
            text.append(contentsOf: String(part.utf8.count).utf8)
            text.append(UInt8(ascii: ":"))
            text.append(contentsOf: part.utf8)
        }
        for path in [itemsPath] + valuePaths {
            add(String(path.components.count), tag: UInt8(ascii: "p"))
            for component in path.components {
                switch component {
                case .key(let key): add(key, tag: UInt8(ascii: "k"))
                case .index(let index): add(String(index), tag: UInt8(ascii: "i"))
                }
            }
        }
        signature = XXHash64.hash(text)
    }

    /// Scans `body` for these paths. A page that leaves its items out and holds nothing else, or only scalars at the
    /// value paths, is a page of no items (`OmittedItems`: protobuf JSON's empty list, MLflow's `{}`).
    package func scan(_ body: [UInt8]) throws(JSONScanError) -> ScannedPage {
        do throws(JSONScanError) {
            return try JSONScanner().scan(body, itemsAt: itemsPath, values: valuePaths)
        } catch {
            guard case .itemsNotFound = error, OmittedItems.leftOut(in: body, valuePaths: valuePaths) else { throw error }
            return ScannedPage(items: [], values: try JSONScanner().values(in: body, at: valuePaths))
        }
    }
}

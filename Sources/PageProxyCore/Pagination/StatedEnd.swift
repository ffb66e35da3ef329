/// The end of the list one page states: a count of items (DRF's `count`, `X-Total-Count`), or of pages (a page count,
/// the number a `last` link names). `StatedEndCheck` compares ends of one unit only, and reads a growth in items as
/// how far a head insert would have shifted the page (a growth in pages says only that it moved by up to a page).
package struct StatedEnd: Sendable, Equatable {
    package let value: Int
    package let countsItems: Bool

    package static func items(_ value: Int) -> StatedEnd { StatedEnd(value: value, countsItems: true) }
    package static func pages(_ value: Int) -> StatedEnd { StatedEnd(value: value, countsItems: false) }

    /// Whether a total at `path` is an estimate by its name (Meilisearch's `estimatedTotalHits`, an `estimated_total`,
    /// an `approximateCount`): a search engine's estimate moves from page to page while no item does (meilisearch#3657:
    /// 83 at offset 0, 194 at offset 72), so it numbers pages but is never compared (`totalIsEstimate`).
    package static func namesAnEstimate(_ path: JSONPath?) -> Bool {
        guard let path, case .key(let name)? = path.components.last else { return false }
        let lowered = name.lowercased()
        return lowered.contains("estimat") || lowered.contains("approx")
    }
}

/// An offset page holding more items than its limit asked for: the upstream read another limit than PageProxy did (a
/// parameter it reads under another spelling, or not at all, serving its default), and offsets stepped by the limit
/// would overlap (review17 B6: `?limit=10&limit=100` on DRF stepped by 10 over pages of 100, every item about ten
/// times under a 200). A clear failure instead; the short page, a cap, is `OffsetStrategy`'s own rule.
enum OffsetPageLength {
    static func check(_ page: Page, limit: Int, parameter: String) throws(PaginationError) {
        guard page.itemCount > limit else { return }
        throw .cannotContinue(
            page: page.number,
            reason: "it holds \(page.itemCount) items where \(parameter)=\(limit) asked for at most \(limit): the upstream reads "
                + "another page size, and offsets stepped by \(limit) would repeat items")
    }
}

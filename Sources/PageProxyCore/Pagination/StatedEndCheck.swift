/// The end of the list (a total, a page count, a `last` link's number) a walk numbered its pages from, checked against
/// every later page's own (review17 B5).
///
/// Pages PageProxy numbers (from a total, or its own page numbers and offsets) hold what the list holds at the moment
/// each is asked for. A list that changed between two of them (items inserted at the head of a newest-first list, rows
/// deleted) shifts the later pages: items come twice or never. So do pages of two versions of the list met in the
/// cache: a page stored when it was the last (`"next": null`) ends a walk a fresh first page numbered further.
///
/// Only a change that moved the pages already walked is one (review21 F3, retest15 N2):
/// - a *smaller* end (rows deleted: the items after them moved back, unseen) fails the walk;
/// - a *larger* end fails it only when the shift shows in the items: a head insert moves the page before's last item
///   (or first, for a shift longer than that page) into this page's first items. An append at the tail moves nothing
///   walked (an oldest-first log written during the walk): the walk goes on, and `grown` says so;
/// - a growth too long to see between two pages (past both of them), or a page before whose items are not at hand
///   (its body left in its file, no items), fails as any change did.
///
/// A failure is `PaginationError.listChanged`; a server walks once more, revalidating every page, when one came from its
/// cache. Walks that follow the upstream's own links or cursors page by page are not compared: a cursor holds its place
/// in a changing list. Estimated totals state no end (`StatedEnd.namesAnEstimate`, `totalIsEstimate`).
struct StatedEndCheck {
    /// The end the walk numbered from, and the page that stated it; nil until a page states one.
    private var numbered: (end: StatedEnd, page: Int)?
    /// The page checked before: XXH64 of its first and last items and how many it held (nil when its body was not in
    /// memory or it held none), and the end it stated.
    private var before: (items: ItemEnds?, end: StatedEnd?)?
    /// The largest end a later page stated past the numbered one, the list having grown at its tail: the walk answers
    /// the pages it numbered (and any the last of them leads on to), not a 502.
    private(set) var grown: (from: StatedEnd, to: StatedEnd)?

    /// Checks `page` against the end the walk numbered from, or remembers its end as that one when the walk has none
    /// yet; `compares` false remembers it in any case (a page reached by the upstream's own link: the pages numbered
    /// after it are numbered from its end).
    mutating func check(_ page: Page, strategy: any PaginationStrategy, compares: Bool = true) throws(PaginationError) {
        let earlier = before
        if strategy.statesAnEstimate {
            // An estimate moves while no item does (never compared); a head insert still moves the page before's last
            // item to this page's first place (retest16 N1: a 200 with an item twice).
            let marks = ItemEnds(page)
            before = (marks, nil)
            if compares, let first = marks?.first, let last = earlier?.items?.last, first == last {
                throw .itemsShifted(page: page.number)
            }
            return
        }
        let stated = strategy.statedEnd(on: page)
        // Only a walk with an end to compare pays for the marks (two item hashes a page).
        defer { if numbered != nil { before = (ItemEnds(page), stated) } }
        guard let end = stated else { return }
        guard compares, let numbered, numbered.end.countsItems == end.countsItems else {
            if numbered == nil || !compares { self.numbered = (end, page.number) }
            return
        }
        guard end.value != numbered.end.value else { return }
        // Since the page before, when it stated an end of this unit; else since the numbering.
        let sinceBefore = earlier?.end.flatMap { $0.countsItems == end.countsItems ? max(0, end.value - $0.value) : nil }
        if end.value > numbered.end.value,
            !Self.showsShift(page, growth: end.value - numbered.end.value, sinceBefore: sinceBefore, countsItems: end.countsItems, before: earlier?.items)
        {
            if end.value > grown?.to.value ?? .min { grown = (numbered.end, end) }
            return
        }
        throw .listChanged(page: page.number, stated: end.value, numbered: numbered.end.value)
    }

    /// Whether `page`, whose end grew by `growth` since the walk numbered its pages (`sinceBefore` since the page before),
    /// shows the shift a head insert of that many items (or pages) would cause: one of its first items is the page
    /// before's last or first item. True, too, when the shift could not be seen: the page before is not at hand, or the
    /// growth since it reaches past both pages. A page with no items is past the end, which a head insert only moves on.
    private static func showsShift(_ page: Page, growth: Int, sinceBefore: Int?, countsItems: Bool, before: ItemEnds?) -> Bool {
        guard page.itemCount > 0 else { return false }
        guard let before, let page = page.withBodyRead() else { return true }
        // A growth in pages is at most a page of items for a walk to see: more is too far.
        let step = sinceBefore ?? growth
        if countsItems ? step >= before.count + page.itemCount : step > 1 { return true }
        let reach = countsItems ? min(growth, page.itemCount) : page.itemCount
        return page.items.prefix(reach).contains { item in
            guard item.range.upperBound <= page.body.count else { return true }
            let hash = XXHash64.hash(page.body[item.range])
            return hash == before.last || hash == before.first
        }
    }

    /// XXH64 of a page's first and last items, and how many it held.
    private struct ItemEnds {
        let first: UInt64
        let last: UInt64
        let count: Int

        /// Nil for a page with no items, or whose body is not in memory.
        init?(_ page: Page) {
            guard page.bodyInFile == nil, let first = page.items.first, let last = page.items.last, last.range.upperBound <= page.body.count,
                first.range.upperBound <= page.body.count
            else { return nil }
            (self.first, self.last, count) = (XXHash64.hash(page.body[first.range]), XXHash64.hash(page.body[last.range]), page.items.count)
        }
    }
}

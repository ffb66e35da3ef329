/// The pages of a filtered offset walk that ask fewer positions than the list's `limit`, counted against the route's
/// `maxPages` by the positions they ask (fix22b; review21 M3).
///
/// `maxPages` counts the list's pages at the `limit` (README). A walk that showed a filter after a first page that
/// served half its `limit` or more steps by that count, with that count as its `limit` (a cap below the `limit` may
/// come with the filter, and stepping by the `limit` would skip the positions past it): 100 positions with every 3rd
/// id hidden, a `limit` of 10, take 15 requests of 7 positions. Counted one each, `maxPages: 12` refused the list; by
/// their positions they are 10 pages of the list. Only a walk that showed a filter counts so: a cap alone is the
/// upstream's page, each one counted.
struct SmallPageCharge {
    /// The pages counted by their positions, the positions they ask, and the list's `limit` they are counted by.
    private var pages = 0
    private var positions = 0
    private var limit = 0

    /// How many pages of `limit` positions `positions` fill.
    private static func filled(_ positions: Int, limit: Int) -> Int {
        positions / limit + (positions % limit == 0 ? 0 : 1)
    }

    /// How many of the pages counted `maxPages` does not count: those less the pages of the `limit` their positions fill.
    var uncharged: Int { pages > 0 ? pages - Self.filled(positions, limit: limit) : 0 }

    /// How many pages `count` more pages of `step` positions each add to the pages `maxPages` counts, under the list's
    /// `limit`: the pages of it their positions fill past those counted already. Nil when they count one each (a step
    /// of the `limit` or more, or numbers past `Int.max`).
    func charge(adding count: Int, step: Int, limit: Int) -> Int? {
        guard step >= 1, step < limit, count >= 0, self.limit == 0 || self.limit == limit else { return nil }
        let (more, overflow) = count.multipliedReportingOverflow(by: step)
        let (total, sumOverflow) = positions.addingReportingOverflow(more)
        guard !overflow, !sumOverflow else { return nil }
        return Self.filled(total, limit: limit) - Self.filled(positions, limit: limit)
    }

    /// Counts `count` more pages of `step` positions each under `limit` (once `charge` said how many pages they add).
    mutating func add(_ count: Int, step: Int, limit: Int) {
        pages += count
        positions += count * step
        self.limit = limit
    }
}

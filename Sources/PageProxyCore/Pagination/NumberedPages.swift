/// Pages known ahead, numbered by one query parameter: `first`, `first + step`, … through `last`.
///
/// A description, not a list: an upstream may claim 10^18 pages, and the walk must refuse that (`maxPages`) before
/// building a single URL. `count` is exact up to `Int.max` and saturates there; every arithmetic step on the
/// upstream's or the client's numbers is overflow-checked, so hostile totals cannot trap.
package struct NumberedPages: Sendable, Equatable {
    /// The URL of the page before the first one; each page sets `parameter` on it.
    package let template: PageURL
    package let parameter: String
    package let first: Int
    /// The distance between two pages' numbers, at least 1.
    package let step: Int
    /// How many pages there are; `Int.max` stands for "at least `Int.max`".
    package let count: Int
    /// The template's query with the parameter's value cut out, prepared once: a page's URL is its number spliced in.
    private let query: QueryBytes.Template

    /// The pages `first`, `first + step`, … that are `<= last`; none when `last < first`.
    package init(template: PageURL, parameter: String, first: Int, through last: Int, step: Int = 1) {
        let step = max(1, step)
        guard last >= first else {
            self.init(template: template, parameter: parameter, first: first, step: step, count: 0)
            return
        }
        // last - first always fits in UInt, even when it overflows Int (first negative, last positive).
        let distance = UInt(bitPattern: last &- first)
        let (steps, overflow) = (distance / UInt(step)).addingReportingOverflow(1)
        let count = overflow || steps > UInt(Int.max) ? Int.max : Int(steps)
        self.init(template: template, parameter: parameter, first: first, step: step, count: count)
    }

    /// The pages `first`, `first + step`, … that are `< end`; none when `end <= first`.
    package init(template: PageURL, parameter: String, first: Int, below end: Int, step: Int = 1) {
        if end > first {
            self.init(template: template, parameter: parameter, first: first, through: end - 1, step: step)
        } else {
            self.init(template: template, parameter: parameter, first: first, step: max(1, step), count: 0)
        }
    }

    private init(template: PageURL, parameter: String, first: Int, step: Int, count: Int) {
        self.template = template
        self.parameter = parameter
        self.first = first
        self.step = step
        self.count = count
        query = QueryBytes.template(settingValueOf: parameter, in: template.query)
    }

    /// The page number (or offset) of the page at `index`, which must be below `count`.
    package func number(at index: Int) -> Int {
        precondition(index >= 0 && index < count, "page index out of range")
        // first + index × step <= last for every index below count, so the true value fits in Int; computing
        // it modulo 2^64 gives exactly that value even when index × step alone exceeds Int.max.
        return Int(bitPattern: UInt(bitPattern: first) &+ UInt(index) &* UInt(step))
    }

    /// The URL of the page at `index`, which must be below `count`.
    package func url(at index: Int) -> PageURL {
        template.replacingQuery(query.query(with: number(at: index)))
    }

    /// The URLs of the first `limit` pages (all of them if fewer).
    package func urls(prefix limit: Int) -> [PageURL] {
        (0..<max(0, min(limit, count))).map(url(at:))
    }
}

/// The page size a page's URL asks for, and whether the upstream can be taken to serve it.
///
/// The route's own size (or less) is the operator's word. A larger one a client asked for (`per_page=500`) may be past
/// the upstream's cap (GitHub and GitLab serve at most 100, DRF its `max_page_size`), and then every page is short of
/// it: such a size may not end a walk at a short page, step offsets, or tell where a window starts (attack12 L4: items
/// 201–203 were answered for 1001–1003, and 100 of 5,000 items as the whole list, under a 200).
enum AskedPageSize {
    /// The size `url` asks for with `parameter` (the route's `route` when it names none; nil below 1), and whether
    /// it is trusted: no larger than the route's, or the route names none.
    static func of(_ url: PageURL, parameter: String?, route: Int?) -> (size: Int?, trusted: Bool) {
        let asked = (url.integerQueryValue(parameter) ?? route).flatMap { $0 >= 1 ? $0 : nil }
        guard let asked, let route else { return (asked, true) }
        return (asked, asked <= route)
    }
}

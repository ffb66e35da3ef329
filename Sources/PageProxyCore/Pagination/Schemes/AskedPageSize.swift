/// The page size a page's URL asks for, and whether the upstream can be taken to serve it.
///
/// The route's own size (or less) is the operator's word. Any other size a client wrote (`per_page=500`) may be past
/// the upstream's cap (GitHub and GitLab serve at most 100, DRF its `max_page_size`), and then every page is short of
/// it: such a size may not end a walk at a short page, step offsets, or tell where a window starts (attack12 L4: items
/// 201–203 were answered for 1001–1003, and 100 of 5,000 items as the whole list, under a 200). A route that names no
/// size trusts none a client writes (review14 F12: it trusted every one).
enum AskedPageSize {
    /// The size `url` asks for with `parameter` (the route's `route` when it names none; nil below 1), and whether
    /// it is trusted: the route's own, or written in the URL and no larger than the route's.
    static func of(_ url: PageURL, parameter: String?, route: Int?) -> (size: Int?, trusted: Bool) {
        let written = url.integerQueryValue(parameter)
        let asked = (written ?? route).flatMap { $0 >= 1 ? $0 : nil }
        guard let asked, written != nil else { return (asked, true) }
        return (asked, route.map { asked <= $0 } ?? false)
    }
}

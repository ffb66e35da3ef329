/// A route's `morePath` (`next-url`, `cursor`): the flag by which a page says no more pages follow, read before its
/// next link or cursor. Zendesk's last page still names both beside `"meta": {"has_more": false}` (real19 F3).
enum PageSaysNoMore {
    /// Whether `page` holds `false` (or `"false"`, `0`: `JSONValue.flag`) at `path`. Absent, null or any other value
    /// says nothing, and the walk goes on by its link or cursor as before.
    static func at(_ path: JSONPath?, of page: Page) -> Bool {
        guard let path else { return false }
        return page.values[path]?.flag == false
    }
}

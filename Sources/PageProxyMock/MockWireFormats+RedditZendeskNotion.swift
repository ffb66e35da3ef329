import Foundation
import PageProxyCore

/// Reddit's listings, Zendesk's side-loading cursor lists and Notion's list envelope, as real19 replayed their
/// recorded traffic (PRAW's cassettes, zenpy's, notion-sdk-py's).
extension MockWireFormats {
    /// Reddit: `{"kind": "Listing", "data": {"after": "t3_<id of the last item>" or null, "dist": N, "modhash": "",
    /// "geo_filter": "", "children": […], "before": null}}`, `?after=t3_<id>`, `?limit=` (capped, no total anywhere),
    /// `cache-control: max-age=0, must-revalidate`. The last page's `after` is null.
    package static func reddit(_ window: MockWindow) -> MockResponse {
        let after = window.isLast ? "null" : JSONText.string("t3_\(window.offset + window.count)")
        var response = MockResponse.json(
            status: 200,
            body: MockJSON.envelope(
                #"{"kind": "Listing", "data": {"after": \#(after), "dist": \#(window.count), "modhash": "", "geo_filter": "", "children": "#,
                window.itemsJSON, #", "before": null}}"#))
        response.setHeader("Cache-Control", "max-age=0, must-revalidate")
        return response
    }

    /// Zendesk's cursor pagination with side-loading (`/api/v2/activities.json`): `{"activities": […], "actors": […],
    /// "users": […], "meta": {"has_more", "after_cursor", "before_cursor"}, "links": {"prev", "next"}}`, one actor and
    /// one user (`{"id": 1000 + id, …}`) per item. **The last page still names a next link and an after cursor**
    /// beside `"has_more": false`; the page past it is empty with nulls. `?page[size]=`, `?page[after]=`.
    package static func zendesk(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        let ids = window.count == 0 ? [] : Array(window.offset + 1...window.offset + window.count)
        func related(_ kind: String) -> String {
            "[" + ids.map { #"{"id": \#(1000 + $0), "url": "/api/v2/\#(kind)/\#(1000 + $0).json", "name": "\#(kind) \#($0)"}"# }.joined(separator: ", ") + "]"
        }
        let others = context.query.items(excluding: ["page[after]", "page[before]"])
        func link(_ name: String, _ cursor: String) -> String {
            JSONText.string(context.baseURL + context.query.path + "?" + MockQuery.queryString(others + [MockQuery.Item(name: name, value: cursor)]))
        }
        let after = window.count == 0 ? nil : MockService.zendeskCursor(offset: window.offset + window.count)
        let before = window.count == 0 ? nil : MockService.zendeskCursor(offset: window.offset)
        let meta = #""meta": {"has_more": \#(!window.isLast), "after_cursor": \#(after.map(JSONText.string) ?? "null"), "#
            + #""before_cursor": \#(before.map(JSONText.string) ?? "null")}"#
        let links = #""links": {"prev": \#(before.map { link("page[before]", $0) } ?? "null"), "#
            + #""next": \#(after.map { link("page[after]", $0) } ?? "null")}"#
        var response = MockResponse.json(
            status: 200,
            body: MockJSON.envelope(#"{"activities": "#, window.itemsJSON, #", "actors": \#(related("actors")), "users": \#(related("users")), \#(meta), \#(links)}"#))
        response.setHeader("Cache-Control", "max-age=0, private, must-revalidate")
        return response
    }

    /// Notion's list: `{"object": "list", "results": […], "next_cursor": "<the next item's id>" or null, "has_more",
    /// "type": "block", "block": {}, "request_id"}`, `?page_size=` (at most the largest page), **`?start_cursor=`**
    /// (not `cursor`, which it ignores); a cursor it does not know is a 400 `validation_error`.
    package static func notion(_ window: MockWindow) -> MockResponse {
        let next = window.isLast ? "null" : JSONText.string(MockService.notionCursor(offset: window.offset + window.count))
        return .json(
            status: 200,
            body: MockJSON.envelope(
                #"{"object": "list", "results": "#, window.itemsJSON,
                #", "next_cursor": \#(next), "has_more": \#(!window.isLast), "type": "block", "block": {}, "request_id": "\#(MockService.notionCursor(offset: window.offset))"}"#))
    }
}

extension MockService {
    func redditWindow(_ context: MockContext) -> Parsed {
        guard let size = context.pageSize("limit") else { return .reply(MockErrors.badParameter(self, "limit", context.query.value("limit") ?? "")) }
        guard let after = context.query.value("after") else { return .window(MockWindow(offset: 0, size: size, total: context.total)) }
        // A fullname: `t3_` and the id of the last item seen; ids are 1...total, so it is also the offset.
        guard after.hasPrefix("t3_"), let id = Int(after.dropFirst(3)), id >= 1, id <= context.total else {
            return .reply(MockErrors.badParameter(self, "after", after))
        }
        return .window(MockWindow(offset: id, size: size, total: context.total))
    }

    func zendeskWindow(_ context: MockContext) -> Parsed {
        guard let size = context.pageSize("page[size]") else {
            return .reply(MockErrors.badParameter(self, "page[size]", context.query.value("page[size]") ?? ""))
        }
        guard let cursor = context.query.value("page[after]") else { return .window(MockWindow(offset: 0, size: size, total: context.total)) }
        guard let offset = Self.slackOffset(cursor: String(cursor.dropFirst(Self.zendeskCursorPrefix.count))),
            cursor.hasPrefix(Self.zendeskCursorPrefix), offset <= context.total
        else { return .reply(MockErrors.badParameter(self, "page[after]", cursor)) }
        return .window(MockWindow(offset: offset, size: size, total: context.total))
    }

    func notionWindow(_ context: MockContext) -> Parsed {
        guard let size = context.pageSize("page_size") else {
            return .reply(MockErrors.badParameter(self, "page_size", context.query.value("page_size") ?? ""))
        }
        guard let cursor = context.query.value("start_cursor") else { return .window(MockWindow(offset: 0, size: size, total: context.total)) }
        guard cursor.hasPrefix(Self.notionCursorPrefix), let offset = Int(cursor.dropFirst(Self.notionCursorPrefix.count)), offset <= context.total else {
            return .reply(MockErrors.notionValidation("start_cursor provided is invalid: \(cursor)"))
        }
        return .window(MockWindow(offset: offset, size: size, total: context.total))
    }

    /// Zendesk's opaque cursors (`aNzY…`-like): a prefix and the base64 the Slack imitation writes.
    static let zendeskCursorPrefix = "z"
    package static func zendeskCursor(offset: Int) -> String { zendeskCursorPrefix + slackCursor(offset: offset) }

    /// Notion's cursors are block ids: a UUID whose last group is the offset.
    static let notionCursorPrefix = "393abc1e-edcd-814b-aee5-"
    package static func notionCursor(offset: Int) -> String { notionCursorPrefix + String(format: "%012d", offset) }
}

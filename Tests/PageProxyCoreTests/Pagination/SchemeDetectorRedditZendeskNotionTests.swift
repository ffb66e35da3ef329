import Testing

@testable import PageProxyCore

/// `scheme: "auto"` on the first pages real19 replayed from recorded traffic: Reddit's listing (F1), Zendesk's
/// side-loaded arrays (F2) and its `has_more` beside a next link (F3), Notion's `start_cursor` (F4).
@Suite struct SchemeDetectorRedditZendeskNotionTests {
    private func detect(_ body: String, url: String = "http://api.test/items") throws -> DetectedPagination {
        try SchemeDetector.detect(.json(body), url: try #require(PageURL(string: url)))
    }

    /// The `notDetected` reason for `body`; nil when it is detected.
    private static func reason(_ body: String, url: String = "http://api.test/items") throws -> String? {
        let page = try #require(PageURL(string: url))
        do {
            _ = try SchemeDetector.detect(.json(body), url: page)
            return nil
        } catch {
            guard case .notDetected(_, let reason) = error else { return "\(error)" }
            return reason
        }
    }

    private static let child = #"{"kind": "t3", "data": {"id": "8xwlg", "name": "t3_8xwlg"}}"#

    @Test("Reddit: data.after beside data.children is a cursor sent back as after (real19 F1: one page of 100 of 1,001)")
    func redditListing() throws {
        let body = #"{"kind": "Listing", "data": {"after": "t3_8xwlg", "dist": 1, "modhash": "", "children": [\#(Self.child)], "before": null}}"#
        let detected = try detect(body, url: "http://r.test/user/spez/?raw_json=1&sort=top&t=all&limit=100")
        #expect(detected.itemsPath == JSONPath("data.children"))
        var options = PaginationScheme.CursorInBody()
        options.cursorPath = try #require(JSONPath("data.after"))
        options.cursorParameter = "after"
        #expect(detected.scheme == .cursorInBody(options))
        #expect(detected.next == "t3_8xwlg")
        // The last page (after null) is a walk of one page, as before.
        let last = try detect(#"{"kind": "Listing", "data": {"after": null, "children": [\#(Self.child)], "before": null}}"#)
        #expect(last.scheme == .cursorInBody(options))
        #expect(last.next == nil)
    }

    @Test("a cursor beside the items under a key auto does not walk is refused, naming the route to write, never one page",
          arguments: [
            (#"{"data": {"nextCursor": WAY, "items": [{"id": 1}]}}"#, "data.nextCursor"),
            (#"{"results": [{"id": 1}], "continuation": WAY}"#, "continuation"),
            (#"{"data": [{"id": 1}], "after": WAY}"#, "after"),
          ])
    func cursorBesideItemsIsRefused(template: String, at path: String) throws {
        for way in [#""abc""#, "42"] {
            let reason = try #require(try Self.reason(template.replacing("WAY", with: way)), "\(way)")
            #expect(reason.contains(#"the first page's "\#(path)""#), "\(reason)")
            #expect(reason.contains(#""scheme": "cursor", "cursorPath": "\#(path)""#), "\(reason)")
        }
        // Null, "" or 0 there is no way on: the page is the whole list.
        for end in ["null", #""""#, "0"] {
            let last = template.replacing("WAY", with: end)
            #expect(try detect(last).scheme == nil, "\(last)")
        }
    }

    private static func zendesk(more: Bool = true) -> String {
        #"{"activities": [{"id": 1, "verb": "tickets.assignment"}], "actors": [{"id": 1001}], "users": [{"id": 1001}], "#
            + #""meta": {"has_more": \#(more), "after_cursor": "xyz", "before_cursor": "abc"}, "#
            + #""links": {"prev": "https://z.test/api/v2/activities.json?page%5Bbefore%5D=abc&page%5Bsize%5D=1", "#
            + #""next": "https://z.test/api/v2/activities.json?page%5Bafter%5D=xyz&page%5Bsize%5D=1"}}"#
    }

    @Test("Zendesk: the URL's last segment names the items among side-loaded arrays (real19 F2: users were answered)")
    func zendeskSideLoading() throws {
        let detected = try detect(Self.zendesk(), url: "https://z.test/api/v2/activities.json?page[size]=1")
        #expect(detected.itemsPath == JSONPath("activities"))
        var options = PaginationScheme.NextURLInBody(nextPath: try #require(JSONPath("links.next")))
        options.morePath = JSONPath("meta.has_more")
        #expect(detected.scheme == .nextURLInBody(options))
        // Named by no segment: `users` beside other arrays of objects is refused, naming them all.
        let reason = try #require(try Self.reason(Self.zendesk(), url: "https://z.test/api/v2/feed"))
        #expect(reason.contains(#"several arrays of objects ("activities", "actors", "users")"#), "\(reason)")
        #expect(reason.contains(#"set the route's "items""#))
        // `users` alone at the root is still the items (matrix-synapse's admin list).
        #expect(try detect(#"{"users": [{"name": "a"}], "total": 1}"#).itemsPath == JSONPath("users"))
        // An empty list the URL names is the list, whatever else is side-loaded.
        let empty = try detect(#"{"activities": [], "users": [{"id": 1}], "meta": {"has_more": false}}"#, url: "https://z.test/api/v2/activities.json")
        #expect(empty.itemsPath == JSONPath("activities"))
        #expect(empty.itemCount == 0)
    }

    @Test("Notion: next_cursor in an \"object\": \"list\" envelope goes back as start_cursor, has_more as the walk's end (F4)")
    func notionEnvelope() throws {
        let body = #"{"object": "list", "results": [{"object": "block", "id": "a"}], "next_cursor": "393abc1e", "has_more": true, "type": "block", "block": {}}"#
        let detected = try detect(body, url: "https://api.notion.test/v1/blocks/393abc1e/children?page_size=2")
        var options = PaginationScheme.CursorInBody()
        options.cursorPath = try #require(JSONPath("next_cursor"))
        options.cursorParameter = "start_cursor"
        options.morePath = JSONPath("has_more")
        #expect(detected.scheme == .cursorInBody(options))
        #expect(detected.itemsPath == JSONPath("results"))
        // Without the envelope, `next_cursor` is sent back as `cursor`, as before.
        guard case .cursorInBody(let plain)? = try detect(#"{"results": [{"id": 1}], "next_cursor": "c"}"#).scheme else {
            Issue.record("not cursor")
            return
        }
        #expect(plain.cursorParameter == "cursor")
        #expect(plain.morePath == nil)
    }
}

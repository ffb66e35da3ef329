import Testing

@testable import PageProxyCore

/// `scheme: "auto"` on first pages as Eve, django-tastypie and Datasette write them (scripts/real-upstreams,
/// branch real10).
@Suite struct SchemeDetectorEveTastypieDatasetteTests {
    private func detect(_ body: String, url: String, headers: [(String, String)] = []) throws -> DetectedPagination {
        try SchemeDetector.detect(.json(body, headers: headers), url: try #require(PageURL(string: url)))
    }

    private static func path(_ dotted: String) -> JSONPath {
        JSONPath(components: dotted.split(separator: ".").map { .key(String($0)) })
    }

    private static let eve = #"""
        {"_items": [{"n": 1, "_id": "6b08", "_links": {"self": {"title": "People", "href": "people/6b08"}}}],
         "_links": {"parent": {"title": "home", "href": "/"}, "self": {"title": "people", "href": "people?max_results=100"},
                    "next": {"title": "next page", "href": "people?max_results=100&page=2"},
                    "last": {"title": "last page", "href": "people?max_results=100&page=10"}},
         "_meta": {"page": 1, "max_results": 100, "total": 1000}}
        """#

    @Test("Eve: _items, a relative _links.next.href (a link, not a cursor), _meta.total carried for concurrency")
    func eve() throws {
        let detected = try detect(Self.eve, url: "http://h/api/v1/people?max_results=100", headers: [("X-Total-Count", "1000")])
        var options = PaginationScheme.NextURLInBody(nextPath: Self.path("_links.next.href"))
        options.totalItemsPath = Self.path("_meta.total")
        #expect(detected.scheme == .nextURLInBody(options))
        #expect(detected.itemsPath == Self.path("_items"))
        #expect(detected.next == "people?max_results=100&page=2")
        #expect(detected.total == 1000)
        #expect(detected.totalSource == "_meta.total")
    }

    @Test("a total goes with a next link only when the link numbers pages plainly: not a keyset, not a total under the page")
    func totalOnlyWithPlainNumbering() throws {
        func totalPath(_ body: String, _ url: String) throws -> JSONPath? {
            guard case .nextURLInBody(let options)? = try detect(body, url: url).scheme else { return nil }
            return options.totalItemsPath
        }
        let items = "[" + (1...50).map { "{\"id\": \($0)}" }.joined(separator: ",") + "]"
        // A page number and an offset by the page's size: the pages go concurrently.
        #expect(try totalPath(#"{"count": 500, "next": "http://h/a?page=2", "results": \#(items)}"#, "http://h/a") == Self.path("count"))
        #expect(try totalPath(#"{"count": 500, "next": "http://h/a?offset=50", "results": \#(items)}"#, "http://h/a") == Self.path("count"))
        // A keyset whose value looks like a step, an offset by another size, a "total" under the page's own count:
        // the links are followed one by one.
        #expect(try totalPath(#"{"count": 500, "next": "http://h/a?after_id=57", "results": \#(items)}"#, "http://h/a?after_id=0") == nil)
        #expect(try totalPath(#"{"count": 500, "next": "http://h/a?offset=20", "results": \#(items)}"#, "http://h/a") == nil)
        // Keysets named like offsets, on a first page whose ids are dense (review11): followed one by one too.
        for keyset in ["from_id", "start_id", "offset_id", "startId", "starting_after"] {
            #expect(try totalPath(#"{"count": 500, "next": "http://h/a?\#(keyset)=50", "results": \#(items)}"#, "http://h/a") == nil)
        }
        #expect(try totalPath(#"{"count": 10, "next": "http://h/a?page=2", "results": \#(items)}"#, "http://h/a") == nil)
    }

    @Test("Eve's href resolves against the page's directory (RFC 3986), not the origin's root")
    func eveRelativeHref() throws {
        let page = try #require(PageURL(string: "http://h/api/v1/people?max_results=100"))
        #expect(page.resolving("people?max_results=100&page=2")?.description == "http://h/api/v1/people?max_results=100&page=2")
    }

    @Test("a relative reference with a query is a link; base64 cursors and plain tokens are not")
    func relativeReferences() {
        #expect(SchemeDetector.looksLikeURL("people?max_results=100&page=2"))
        #expect(SchemeDetector.looksLikeURL("things.json?_next=100"))
        #expect(!SchemeDetector.looksLikeURL("cD0xMDA="))
        #expect(!SchemeDetector.looksLikeURL("ab/cd+ef=="))
        #expect(!SchemeDetector.looksLikeURL("100"))
        #expect(!SchemeDetector.looksLikeURL("not a url?x=1"))
        // Any href is a link (HAL): even one with no query.
        #expect(SchemeDetector.isLink("people/2", at: Self.path("_links.next.href")))
        #expect(!SchemeDetector.isLink("people2", at: Self.path("next_page")))
    }

    @Test("Eve's one-page collection: no next link, the total the page's own count: one page")
    func eveOnePage() throws {
        let body = #"{"_items": [{"n": 1}], "_links": {"self": {"href": "people"}}, "_meta": {"page": 1, "max_results": 25, "total": 1}}"#
        let detected = try detect(body, url: "http://h/api/v1/people")
        #expect(detected.scheme == nil)
        #expect(detected.itemsPath == Self.path("_items"))
    }

    @Test("django-tastypie: objects, meta.next as an absolute path, meta.total_count carried for concurrency")
    func tastypie() throws {
        // The first page asked for `limit=100&offset=0` (its offset grows by the size it names).
        let body = #"{"meta": {"limit": 100, "next": "/api/v1/entry/?limit=100&offset=100", "offset": 0, "previous": null, "total_count": 1000}, "objects": [{"id": 1, "resource_uri": "/api/v1/entry/1/"}]}"#
        let detected = try detect(body, url: "http://h/api/v1/entry/?limit=100&offset=0")
        var options = PaginationScheme.NextURLInBody(nextPath: Self.path("meta.next"))
        options.totalItemsPath = Self.path("meta.total_count")
        #expect(detected.scheme == .nextURLInBody(options))
        #expect(detected.itemsPath == Self.path("objects"))
        #expect(detected.total == 1000)
        // ?limit=0 ("all"): one page with everything, next null.
        let all = try detect(#"{"meta": {"limit": 1000, "next": null, "offset": 0, "previous": null, "total_count": 2}, "objects": [{"id": 1}, {"id": 2}]}"#,
                             url: "http://h/api/v1/entry/?limit=0")
        #expect(all.scheme?.name == "next-url")
        #expect(all.next == nil)
    }

    private static let datasetteRows = #"""
        {"database": "things", "table": "things", "rows": [[1, "thing-1", null], [2, "thing-2", null]], "truncated": false,
         "filtered_table_rows_count": 1000, "columns": ["id", "name", "note"], "primary_keys": ["id"],
         "suggested_facets": [{"name": "kind", "toggle_url": "http://h/things/things.json?_facet=kind"}],
         "next": "2", "next_url": "http://h/things/things.json?_next=2", "private": false}
        """#

    @Test("Datasette's default shape: rows as arrays are the items, not suggested_facets; next_url, not next")
    func datasetteRows() throws {
        let detected = try detect(Self.datasetteRows, url: "http://h/things/things.json")
        #expect(detected.itemsPath == Self.path("rows"))
        #expect(detected.itemCount == 2)
        #expect(detected.scheme == .nextURLInBody(PaginationScheme.NextURLInBody(nextPath: Self.path("next_url"))))
        #expect(detected.next == "http://h/things/things.json?_next=2")
        // With its Link header (as Datasette sends): link-header, the same items.
        let linked = try detect(Self.datasetteRows, url: "http://h/things/things.json",
                                headers: [("link", #"<http://h/things/things.json?_next=2>; rel="next""#)])
        #expect(linked.scheme == .linkHeader(.init()))
        #expect(linked.itemsPath == Self.path("rows"))
    }

    @Test("Datasette ?_shape=objects: rows of objects; ?_shape=array: a bare array, the next page in Link only")
    func datasetteShapes() throws {
        let objects = try detect(#"{"rows": [{"id": 1}], "columns": ["id"], "next": "1", "next_url": "http://h/t.json?_shape=objects&_next=1"}"#,
                                 url: "http://h/t.json?_shape=objects")
        #expect(objects.itemsPath == Self.path("rows"))
        #expect(objects.scheme?.name == "next-url")
        let array = try detect(#"[{"id": 1}]"#, url: "http://h/t.json?_shape=array",
                               headers: [("link", #"<http://h/t.json?_shape=array&_next=1>; rel="next""#)])
        #expect(array.itemsPath == .root)
        #expect(array.scheme == .linkHeader(.init()))
    }

    @Test("a body with both a cursor and a link follows the link, wherever the cursor stands in the search order")
    func linkBeatsCursor() throws {
        let detected = try detect(#"{"items": [{"id": 1}], "next_cursor": "abc", "links": {"next": "/items?cursor=abc"}}"#, url: "http://h/items")
        #expect(detected.scheme?.name == "next-url")
        #expect(detected.next == "/items?cursor=abc")
    }
}

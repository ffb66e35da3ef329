import PageProxyCore
@testable import PageProxy
import Testing

/// retest19 F4: a `morePath` that certainly names no flag passed check-config, and walks went on as without it (one
/// request more at the end). What certainly names none is refused, naming the field and what it overlaps.
@Suite struct MorePathConfigTests {
    private static func refused(_ pagination: String, items: String? = nil, mentions: [String]) {
        let extra = items.map { #""items": "\#($0)""# } ?? ""
        ConfigFixture.expectError(
            ConfigFixture.document(routes: [ConfigFixture.route(pagination: pagination, extra: extra)]), field: "routes[0].pagination.morePath",
            mentions: mentions)
    }

    @Test("morePath that is the cursor, the next link, a total, or holds or lies in one of them is refused")
    func sameAsAnotherPath() {
        Self.refused(#"{ "scheme": "cursor", "cursorPath": "meta.after", "morePath": "meta.after" }"#, mentions: ["cursorPath", "has_more"])
        Self.refused(#"{ "scheme": "cursor", "morePath": "response_metadata" }"#, mentions: ["overlaps the cursorPath", "response_metadata.next_cursor"])
        Self.refused(#"{ "scheme": "next-url", "nextPath": "links.next", "morePath": "links.next" }"#, mentions: ["nextPath"])
        Self.refused(#"{ "scheme": "next-url", "morePath": "next.has_more" }"#, mentions: ["overlaps the nextPath"])
        Self.refused(#"{ "scheme": "next-url", "totalItemsPath": "count", "morePath": "count" }"#, mentions: ["totalItemsPath"])
        Self.refused(#"{ "scheme": "next-url", "totalPagesPath": "meta.pages", "morePath": "meta.pages" }"#, mentions: ["totalPagesPath"])
    }

    @Test("morePath that is the route's items, or inside them, or holds them, is refused; beside them it loads")
    func theItems() throws {
        Self.refused(#"{ "scheme": "next-url", "morePath": "results" }"#, items: "results", mentions: ["route's items"])
        Self.refused(#"{ "scheme": "cursor", "morePath": "data.0.has_more" }"#, items: "data", mentions: ["overlaps the route's items \"data\""])
        Self.refused(#"{ "scheme": "cursor", "morePath": "data" }"#, items: "data.items", mentions: ["overlaps"])
        let fine = ConfigFixture.route(pagination: #"{ "scheme": "next-url", "nextPath": "links.next", "morePath": "meta.has_more" }"#,
            extra: #""items": "activities""#)
        let route = try ConfigFixture.parse(ConfigFixture.document(routes: [fine])).routes[0]
        guard case .scheme(let scheme) = route.pagination else { Issue.record("no scheme"); return }
        #expect(scheme.morePath?.description == "meta.has_more")
    }

    @Test("a URL written as morePath is refused as no JSON path")
    func aURL() {
        Self.refused(#"{ "scheme": "next-url", "morePath": "https://api.example.com/items?has_more" }"#, mentions: ["is a URL, not a JSON path"])
    }
}

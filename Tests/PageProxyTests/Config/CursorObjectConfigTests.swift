import PageProxyCore
@testable import PageProxy
import Testing

/// fix38 (real20 F2): `cursorObjectPath` sends every member of an object back (MediaWiki's `continue`).
@Suite struct CursorObjectConfigTests {
    @Test("cursorObjectPath loads; beside cursorPath or cursorParameter it is refused, naming both")
    func cursorObjectPath() throws {
        let fine = ConfigFixture.route(pagination: #"{ "scheme": "cursor", "cursorObjectPath": "continue" }"#, extra: #""items": "query.pages""#)
        let route = try ConfigFixture.parse(ConfigFixture.document(routes: [fine])).routes[0]
        guard case .scheme(.cursorInBody(let options)) = route.pagination else { Issue.record("no cursor scheme"); return }
        #expect(options.cursorObjectPath == JSONPath("continue"))
        for single in [#""cursorPath": "continue.gapcontinue""#, #""cursorParameter": "gapcontinue""#] {
            ConfigFixture.expectError(
                ConfigFixture.document(routes: [ConfigFixture.route(pagination: #"{ "scheme": "cursor", "cursorObjectPath": "continue", \#(single) }"#)]),
                field: "routes[0].pagination.cursorObjectPath", mentions: ["every member", "set one of them"])
        }
        ConfigFixture.expectError(
            ConfigFixture.document(routes: [ConfigFixture.route(pagination: #"{ "scheme": "cursor", "cursorObjectPath": "" }"#)]),
            field: "routes[0].pagination.cursorObjectPath", mentions: ["must name a member"])
    }
}

@testable import PageProxy
import Testing

/// Route names are unique: the second route of a name is refused, naming the first route of that name and itself,
/// however many routes lie between (each name's first index is kept in a table, so the check is linear in routes:
/// attack13 U1, 100,000 routes took 159 s when every route scanned the ones before it).
@Suite struct RouteNameUniquenessTests {
    private static func routes(_ names: [String]) -> String {
        ConfigFixture.document(routes: names.map { ConfigFixture.route(name: "\"\($0)\"") })
    }

    @Test("a repeated name names the first route of that name and the repeat, far apart or not")
    func repeatNamesBothRoutes() {
        let names = (0..<2_000).map { "r\($0)" } + ["r7"]
        ConfigFixture.expectError(
            Self.routes(names), field: "routes[2000].name", mentions: ["duplicate route name \"r7\"", "routes[7] and routes[2000]"])
    }

    @Test("the first repeat is the one reported, and it names the first of its name")
    func firstRepeatIsReported() {
        ConfigFixture.expectError(
            Self.routes(["a", "b", "a", "b", "a"]), field: "routes[2].name", mentions: ["routes[0] and routes[2]"])
    }

    @Test("distinct names that differ only in case or by a prefix are all kept, in order")
    func distinctNamesAreKept() throws {
        let names = ["a", "A", "ab", "a-b", "b"] + (0..<5_000).map { "route\($0)" }
        let config = try ConfigFixture.parse(Self.routes(names))
        #expect(config.routes.map(\.name) == names)
    }
}

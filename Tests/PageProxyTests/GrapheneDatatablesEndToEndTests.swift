import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// graphene-django's Relay connection over GET and djangorestframework-datatables as scripts/real-upstreams found them
/// (branch real15), copied into the mock and walked end to end: a cursor that goes back inside GraphQL's JSON
/// `variables` (`"queryEncoding": "json"`, `variables.after`), and DataTables' `{"recordsTotal", "recordsFiltered",
/// "data", "draw"}`, whose first page auto answered as the whole list under a 200.
@Suite struct GrapheneDatatablesEndToEndTests {
    private static let size = SchemeRoutes.pageSize
    private typealias Habits = RealHabitsEndToEndTests

    private static let query = "query=" + MockQuery.encode("query($after:String,$first:Int){things(first:$first,after:$after){edges{node{id}} pageInfo{endCursor}}}")

    /// The route parsed from config text at the mock's address (`route.upstream`), as `RisonPagesEndToEndTests` does.
    static func parsed(_ route: RouteConfig, _ pagination: String, items: String) -> RouteConfig {
        let upstream = "http://127.0.0.1:\(route.upstream.port)\(route.upstream.path)?\(route.upstream.query ?? "")"
        let text = #"{"routes": [{"name": "\#(route.name)", "upstream": "\#(upstream)", "items": "\#(items)", "pagination": \#(pagination)}]}"#
        return (try? ConfigLoader.parse(Array(text.utf8), file: "test.json", environment: [:]))?.routes.first ?? route
    }

    static var routes: [TestStack.Route] {
        let auto: @Sendable (inout RouteConfig) -> Void = { $0.pagination = .auto(itemsPath: nil) }
        let unused = PaginationScheme.pageNumber(.init())
        let json = #"{"scheme": "cursor", "queryEncoding": "json", "cursorPath": "data.things.pageInfo.endCursor", "cursorParameter": "variables.after", "sizeParameter": "variables.first", "pageSize": \#(size)}"#
        let plain = #"{"scheme": "cursor", "cursorPath": "data.things.pageInfo.endCursor", "cursorParameter": "after", "sizeParameter": null}"#
        let edges = "data.things.edges"
        let datatables = #"{"scheme": "offset", "offsetParameter": "start", "limitParameter": "length", "limit": \#(size)}"#
        return [
            TestStack.Route(name: "graphene-json", mockPath: "/graphene/items?\(query)", scheme: unused) { $0 = parsed($0, json, items: edges) },
            TestStack.Route(name: "graphene-plain", mockPath: "/graphene/items?\(query)", scheme: unused) { $0 = parsed($0, plain, items: edges) },
            TestStack.Route(name: "graphene-auto", mockPath: "/graphene/items?\(query)", scheme: unused, configure: auto),
            TestStack.Route(name: "datatables", mockPath: "/datatables/items", scheme: unused) { $0 = parsed($0, datatables, items: "data") },
            TestStack.Route(name: "datatables-auto", mockPath: "/datatables/items?start=0&length=\(size)", scheme: unused, configure: auto),
            TestStack.Route(name: "datatables-auto-bare", mockPath: "/datatables/items", scheme: unused, configure: auto),
        ]
    }

    /// The merged answer of a connection's first `total` items: each item as its edge.
    static func edges(_ total: Int) -> [UInt8] {
        Array(("[" + (0..<total).map { #"{"node":"# + String(decoding: MockDataset.item($0), as: UTF8.self) + "}" }.joined(separator: ",") + "]").utf8)
    }

    @Test("graphene: a cursor route on variables.after walks the connection, every edge once (before real15: no route could send the cursor)")
    func grapheneJSONVariables() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 5, 10, 25, 95] {
                let (merged, requests) = try await Habits.merged(stack, "graphene-json", total: total)
                #expect(merged.status == 200, "\(total): \(merged.text.prefix(300))")
                #expect(merged.body == Self.edges(total), "\(total): \(merged.text.prefix(200))")
                // The last page still names its end cursor, but its `hasNextPage: false` ends the walk there (real16; before,
                // one more request, of no edges).
                #expect(requests == Habits.pages(total), "\(total): \(requests)")
                // Every request's variables: the size as a number, the cursor (after the first) as a string.
                for (index, request) in stack.mock.log.requests.enumerated() {
                    let variables = try #require(PageURL(string: "http://x" + request.target)?.queryValue("variables"), "\(request.target)")
                    let value = try QueryJSONDecoder.decode(variables)
                    #expect(value.member("first") == .number(String(Self.size)), "\(variables)")
                    // The cursor of the last edge before: the page's last, or the list's.
                    if index > 0 { #expect(value.member("after") == .string(MockService.relayCursor(min(index * Self.size, total) - 1)), "\(variables)") }
                }
            }
        }
    }

    @Test("graphene: a cursor sent as a plain after= is not read; the repeated page is refused, and auto says it cannot tell")
    func grapheneRefusals() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            // More than the largest page (100), which a route that sends no `first` gets: page 1 says more follow. (25
            // fit on that page, whose `hasNextPage: false` ends the walk with every item since real16.)
            let (plain, _) = try await Habits.merged(stack, "graphene-plain", total: 250)
            #expect(plain.status == 502)
            #expect(plain.text.contains(#""code":"pagination_repeated_page""#), "\(plain.text.prefix(300))")
            let (auto, _) = try await Habits.merged(stack, "graphene-auto", total: 250)
            #expect(auto.status == 502)
            #expect(auto.text.contains(#""code":"pagination_not_detected""#), "\(auto.text.prefix(300))")
        }
    }

    @Test("DataTables: auto walks ?start=&length= by its recordsFiltered (before real15: its first page as the whole list, under a 200)",
          arguments: ["datatables-auto", "datatables"])
    func datatables(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 5, 10, 25, 95] {
                let (merged, requests) = try await Habits.merged(stack, route, total: total)
                #expect(merged.status == 200, "\(route) \(total): \(merged.text.prefix(300))")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(route) \(total)")
                if route == "datatables-auto" {
                    // A first page that holds every item is one page, as auto says.
                    #expect(merged.header("PageProxy-Scheme") == (total > Self.size ? "auto->offset" : "auto->single-page"), "\(route) \(total)")
                    #expect(requests == Habits.pages(total), "\(route) \(total): \(requests)")
                } else {
                    // No total: a full last page is followed by the 404 past it, which ends the walk; so is a short
                    // first page (a cap or the list's end: real18 F1b).
                    let past = total > 0 && (total % Self.size == 0 || total < Self.size)
                    #expect(requests == Habits.pages(total) + (past ? 1 : 0), "\(route) \(total): \(requests)")
                }
            }
        }
    }

    @Test("DataTables: without ?start=&length= nothing says how it numbers: refused, not answered as one page (before real15: a 200 of the first page)")
    func datatablesBare() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let (merged, _) = try await Habits.merged(stack, "datatables-auto-bare", total: 25)
            #expect(merged.status == 502, "\(merged.text.prefix(300))")
            #expect(merged.text.contains(#""code":"pagination_not_detected""#), "\(merged.text.prefix(300))")
            #expect(merged.text.contains("recordsFiltered"), "\(merged.text.prefix(400))")
            // One page of everything is one page.
            let (single, _) = try await Habits.merged(stack, "datatables-auto-bare", total: 7)
            #expect(single.status == 200)
            #expect(single.body == MockDataset.mergedJSON(total: 7))
        }
    }
}

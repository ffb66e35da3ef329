import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// Flask-AppBuilder's (and Apache Superset's) page inside a Rison `q`, walked by a route written as the README writes
/// it: `"pageParameter": "q.page"`, `"sizeParameter": "q.page_size"`, `"queryEncoding": "rison"` (real15). Before,
/// no route reached FAB's page: a page-number route was refused at page 2 (real14), auto could not tell.
@Suite struct RisonPagesEndToEndTests {
    private typealias Habits = RealHabitsEndToEndTests

    /// The route parsed from config text, as a user writes it, at the mock's address (`route.upstream`).
    private static func parsed(_ route: RouteConfig, pagination: String, upstreamQuery: String) -> RouteConfig {
        let upstream = "http://127.0.0.1:\(route.upstream.port)\(route.upstream.path)?\(upstreamQuery)"
        let text = #"{"routes": [{"name": "\#(route.name)", "upstream": "\#(upstream)", "items": "result", "pagination": \#(pagination)}]}"#
        guard let config = try? ConfigLoader.parse(Array(text.utf8), file: "test.json", environment: [:]), let parsed = config.routes.first else {
            return route
        }
        return parsed
    }

    static var routes: [TestStack.Route] {
        let rison = #""queryEncoding": "rison", "pageParameter": "q.page", "sizeParameter": "q.page_size", "firstPage": 0"#
        let withTotal = #"{"scheme": "page-number", \#(rison), "totalItemsPath": "count"}"#
        let open = #"{"scheme": "page-number", \#(rison)}"#
        // The route's own q: its size and an order, which the client's q adds to.
        let own = "q=(order_column:id,page_size:\(SchemeRoutes.pageSize))"
        return [
            TestStack.Route(name: "fab-rison", mockPath: "/fab/items", scheme: .pageNumber(.init())) {
                $0 = parsed($0, pagination: withTotal, upstreamQuery: own)
            },
            TestStack.Route(name: "fab-rison-open", mockPath: "/fab/items", scheme: .pageNumber(.init())) {
                $0 = parsed($0, pagination: open, upstreamQuery: own)
            },
        ]
    }

    /// The client's own q: a filter with a quoted value (a space, a comma) and an order direction.
    private static let clientQ = "q=(filters:!((col:name,opr:ct,value:'a,%20b')),order_direction:asc)"

    @Test("A page-number route on q.page walks FAB to the end, every item once, keeping the client's q members (before real15: refused at page 2)",
          arguments: ["fab-rison", "fab-rison-open"])
    func walksInsideQ(route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [0, 7, 10, 25, 95] {
                stack.mock.log.reset()
                let answer = try await stack.get("/\(route)?mock_total=\(total)&\(Self.clientQ)")
                #expect(answer.status == 200, "\(route) \(total): \(answer.text.prefix(300))")
                #expect(answer.body == MockDataset.mergedJSON(total: total), "\(route) \(total)")
                // Every page once, and the empty page after a full last one too: without a total, and with one since a
                // full last page a total numbered is followed by one more (fix15, review17 B10: totals can be low).
                let pages = Habits.pages(total)
                let expected = total == 0 || total % SchemeRoutes.pageSize != 0 ? pages : pages + 1
                let targets = stack.mock.log.requests.map(\.target)
                #expect(targets.count == expected, "\(route) \(total): \(targets)")
                // Every request sent one q: the client's filter and direction, the route's order and size, the page.
                var numbers: [Int] = []
                for target in targets {
                    let q = try #require(PageURL(string: "http://x" + target)?.queryValue("q"), "\(target)")
                    let value = try RisonDecoder.decode(q)
                    #expect(value.member("filters") == .array([.object([("col", .string("name")), ("opr", .string("ct")), ("value", .string("a, b"))])]))
                    #expect(value.member("order_direction") == .string("asc"))
                    #expect(value.member("order_column") == .string("id"))
                    #expect(value.member("page_size") == .number(String(SchemeRoutes.pageSize)))
                    if case .number(let page)? = value.member("page"), let number = Int(page) { numbers.append(number) }
                    #expect(!target.contains("q.page"), "\(target)")
                }
                #expect(numbers.sorted() == Array(0..<expected), "\(route) \(total): \(targets)")
            }
        }
    }

    @Test("The client's page in q is where the walk starts; its size in q over the route's is refused as given twice")
    func clientPageAndSize() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let answer = try await stack.get("/fab-rison?mock_total=25&q=(page:1)")
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            #expect(answer.body == MockDataset.page(offset: SchemeRoutes.pageSize, count: 25, total: 25), "\(answer.text.prefix(200))")
            // The route's q names a size: the client's is a second one, the same 400 as `per_page` given twice.
            let twice = try await stack.get("/fab-rison?mock_total=25&q=(page_size:3)")
            #expect(twice.status == 400)
            #expect(twice.text.contains(#""parameter":"q.page_size""#), "\(twice.text)")
        }
    }

    @Test("A q that is no Rison object is a 400 naming q, and nothing is asked upstream", arguments: [
        "q=(page:0", "q=!(1)", "q=(page:(a:1))", "q=(filters:!((col:name)",
    ])
    func badQ(query: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            stack.mock.log.reset()
            let answer = try await stack.get("/fab-rison?mock_total=25&\(query)")
            #expect(answer.status == 400, "\(answer.text)")
            #expect(answer.text.contains(#""code":"invalid_pagination_parameter""#), "\(answer.text)")
            #expect(answer.text.contains(#""parameter":"q""#), "\(answer.text)")
            #expect(stack.mock.log.count == 0)
        }
    }
}

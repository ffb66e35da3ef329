import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// attack22 (harness22 items 1–3): `Link` fields a strict RFC 8288 reader does not take for this page's next link,
/// walked end to end on the mock's GitHub service (`mock_link=`): a decoy `next` anchored at another resource (it was
/// followed: a 200 with wrong items), a `prev` whose `title` or second `rel` says `next` (a 502 on the last page), and
/// an unclosed `<` before the real next (it swallowed the next link-value: a 502).
@Suite struct HostileLinkEndToEndTests {
    static var routes: [TestStack.Route] {
        var github = PaginationScheme.LinkHeader()
        github.pageSize = SchemeRoutes.pageSize
        return [
            TestStack.Route(name: "gh", mockPath: "/github/items", scheme: .linkHeader(github)),
            TestStack.Route(name: "gh-auto", mockPath: "/github/items?per_page=\(SchemeRoutes.pageSize)", scheme: .linkHeader(github)) {
                $0.pagination = .auto(itemsPath: nil)
            },
        ]
    }

    @Test("each hostile Link spelling walks the whole list: merged, NDJSON and a window, explicit and auto",
          arguments: ["anchor", "titlerel", "reltwice", "unclosed"], ["gh", "gh-auto"])
    func walksTheWholeList(habit: String, route: String) async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            for total in [35, 40] {
                let merged = try await stack.get("/\(route)?mock_total=\(total)&mock_link=\(habit)")
                #expect(merged.status == 200, "\(total): \(merged.text)")
                #expect(merged.body == MockDataset.mergedJSON(total: total), "\(total): \(merged.text)")
                let ndjson = try await stack.get("/\(route)?mock_total=\(total)&mock_link=\(habit)&_format=ndjson")
                #expect(ndjson.status == 200, "\(total): \(ndjson.text)")
                #expect(ndjson.body == MockDataset.ndjson(total: total), "\(total): \(ndjson.text)")
                for offset in [5, 30] {
                    let window = try await stack.get("/\(route)?mock_total=\(total)&mock_link=\(habit)&_offset=\(offset)&_limit=10")
                    #expect(window.status == 200, "\(total) \(offset): \(window.text)")
                    #expect(window.body == MockDataset.page(offset: offset, count: 10, total: total), "\(total) \(offset): \(window.text)")
                }
            }
        }
    }

    @Test("the mock refuses a mock_link it does not know")
    func unknownHabit() async throws {
        try await TestStack.run(routes: Self.routes) { stack in
            let answer = try await stack.get("/gh?mock_total=35&mock_link=nope")
            #expect(answer.status == 400, "\(answer.text)")
            #expect(answer.text.contains("invalid value for mock_link: 'nope'"), "\(answer.text)")
        }
    }
}

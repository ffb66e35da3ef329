import Foundation
import Testing
@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// `mock_fault=kind@K`, each kind on each route it applies to.
@Suite struct MockFaultTests {
    let origin = MockTestSupport.origin

    /// The target of page 2 (page size 10, 25 items) on `service`, with `extra` query.
    static func page2(_ service: MockService, _ extra: String) -> String {
        let page = switch service {
        case .plain, .wrapped, .github, .gitlab: "page=2&per_page=10"
        case .drf, .offset, .ninja, .tastypie: "limit=10&offset=10"
        case .eve: "page=2&max_results=10"
        case .datasette: "_size=10&_next=10"
        case .smorest: "page=2&page_size=10"
        case .litestar: "current_page=2&page_size=10"
        case .drfPages: "page=2&page_size=10"
        case .jsonapi: "page[number]=2&page[size]=10"
        case .slack: "limit=10&cursor=\(MockService.slackCursor(offset: 10))"
        case .stripe, .localstripe: "limit=10&starting_after=10"
        case .mastodon: "limit=10&max_id=10"
        case .mlflow: "max_results=10&page_token=\(MockQuery.encode(MockService.mlflowToken(offset: 10)))"
        case .kinto: "_limit=10&_token=\(MockQuery.encode(MockService.kintoToken(offset: 10)))"
        case .drfLink: "page=2&page_size=10"
        case .wagtail, .drfLinkOffset, .jupyterhub, .airflow: "limit=10&offset=10"
        case .piccolo: "__page=2&__page_size=10"
        case .mailman: "count=10&page=2"
        case .fab: "q=(page:1,page_size:10)"
        case .safrs: "page[offset]=10&page[limit]=10"
        case .synapse: "from=10&limit=10"
        case .spring: "page=1&size=10"
        case .graph: "$top=10&$skiptoken=10"
        case .aspnet: "pageNumber=2&pageSize=10"
        case .facets: "page=2&per_page=10"
        case .graphene, .strawberry: "variables=\(MockQuery.encode(#"{"first":10,"after":"\#(MockService.relayCursor(9))"}"#))"
        case .datatables: "start=10&length=10"
        case .reddit: "limit=10&after=t3_10"
        case .zendesk: "page[size]=10&page[after]=\(MockQuery.encode(MockService.zendeskCursor(offset: 10)))"
        case .notion: "page_size=10&start_cursor=\(MockService.notionCursor(offset: 10))"
        case .mediawiki: "action=query&list=allpages&aplimit=10&apcontinue=Item_11"
        case .roundup: "@page_size=10&@page_index=2"
        }
        return "\(service.path)?\(page)&mock_total=25&\(extra)"
    }

    @Test func parsing() {
        #expect(MockFaults(parsing: nil) == MockFaults())
        #expect(MockFaults(parsing: "") == MockFaults())
        let faults = MockFaults(parsing: "status500@3,loop@2")
        #expect(faults == MockFaults([.init(kind: .status500, page: 3), .init(kind: .loop, page: 2)]))
        #expect(faults?.has(.status500, page: 3) == true)
        #expect(faults?.has(.status500, page: 2) == false)
        #expect(faults?.nextLink(page: 2) == .loop)
        #expect(faults?.nextLink(page: 3) == MockFaults.NextLink.normal)
        for kind in MockFaults.Kind.allCases {
            #expect(MockFaults(parsing: "\(kind.rawValue)@1")?.has(kind, page: 1) == true)
        }
        for bad in ["status500", "status500@", "status500@x", "status500@0", "boom@1", "@1", "loop@1@2"] {
            #expect(MockFaults(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test(arguments: MockService.allCases) func status500IsPermanent(service: MockService) async {
        let mock = MockUpstream()
        let target = Self.page2(service, "mock_fault=status500@2")
        for _ in 0..<3 {
            let response = await MockTestSupport.send(mock, target)
            #expect(response.status == 500)
            #expect(MockTestSupport.text(response) == #"{"error":"internal server error"}"#)
            #expect(response.header("Content-Length") == String(response.body.count))
        }
        // Other pages are untouched (Litestar's handler needs both its parameters named, MLflow its max_results).
        let parameters = service == .litestar ? "page_size=10&current_page=1&" : service == .mlflow ? "max_results=10&" : ""
        let first = await MockTestSupport.send(mock, "\(service.path)?\(parameters)mock_total=25&mock_fault=status500@2")
        #expect(first.status == 200)
    }

    @Test(arguments: MockService.allCases) func transient500OncePerURL(service: MockService) async {
        let mock = MockUpstream()
        let target = Self.page2(service, "mock_fault=transient500@2")
        #expect(await MockTestSupport.send(mock, target).status == 500)
        let retry = await MockTestSupport.send(mock, target)
        #expect(retry.status == 200)
        // "transient500@9" never fires on page 2 and writes links of the same shape.
        let normal = await MockTestSupport.send(mock, Self.page2(service, "mock_fault=transient500@9"))
        #expect(retry.body.count == normal.body.count)
        #expect(retry.headers.map(\.name) == normal.headers.map(\.name))
        // Another URL for the same page fires on its own; reset() re-arms.
        #expect(await MockTestSupport.send(mock, target + "&x=1").status == 500)
        mock.log.reset()
        #expect(await MockTestSupport.send(mock, target).status == 500)
    }

    @Test(arguments: MockService.allCases) func status429Once(service: MockService) async {
        let mock = MockUpstream()
        let target = Self.page2(service, "mock_fault=status429@2")
        let first = await MockTestSupport.send(mock, target)
        #expect(first.status == 429)
        #expect(first.header("Retry-After") == "1")
        #expect(await MockTestSupport.send(mock, target).status == 200)
    }

    @Test(arguments: MockService.allCases) func malformedBodyIsTruncated(service: MockService) async {
        let mock = MockUpstream()
        // "malformed@9" never fires on page 2 and has the same length as "malformed@2".
        let good = await MockTestSupport.send(mock, Self.page2(service, "mock_fault=malformed@9"))
        let bad = await MockTestSupport.send(mock, Self.page2(service, "mock_fault=malformed@2"))
        #expect(good.status == 200)
        #expect(bad.status == 200)
        #expect(bad.header("Content-Length") == String(bad.body.count))
        #expect(bad.body.count == good.body.count / 2)
        if ![MockService.drf, .drfPages, .jsonapi, .eve, .tastypie, .datasette, .zendesk].contains(service) {  // no links inside the body
            #expect(good.body.starts(with: bad.body))
        }
        #expect((try? JSONSerialization.jsonObject(with: Data(bad.body), options: [.fragmentsAllowed])) == nil)
    }

    @Test func malformedAppliesToEmptyPages() async {
        let response = await MockTestSupport.send(MockUpstream(), "/plain/items?mock_total=0&mock_fault=malformed@1")
        #expect(MockTestSupport.text(response) == "[")
        #expect(response.header("Content-Length") == "1")
    }

    @Test func loopPointsBackToPageOne() async {
        let mock = MockUpstream()
        let github = await MockTestSupport.send(mock, Self.page2(.github, "mock_fault=loop@2"))
        #expect(MockTestSupport.link(github.header("Link"), rel: "next") == "\(origin)/repositories/1/items?per_page=10&mock_total=25&mock_fault=loop%402&page=1")
        let gitlab = await MockTestSupport.send(mock, Self.page2(.gitlab, "mock_fault=loop@2"))
        #expect(gitlab.header("X-Next-Page") == "1")
        #expect(MockTestSupport.link(gitlab.header("Link"), rel: "next") == "\(origin)/gitlab/items?mock_fault=loop%402&mock_total=25&page=1&per_page=10")
        let drf = MockTestSupport.members(await MockTestSupport.send(mock, Self.page2(.drf, "mock_fault=loop@2")).body)
        #expect(MockTestSupport.string(drf["next"]) == "\(origin)/drf/items/?limit=10&mock_fault=loop%402&mock_total=25&offset=0")
        let pages = MockTestSupport.members(await MockTestSupport.send(mock, Self.page2(.drfPages, "mock_fault=loop@2")).body)
        #expect(MockTestSupport.string(pages["next"]) == "\(origin)/drf-pages/items/?mock_fault=loop%402&mock_total=25&page=1&page_size=10")
        let jsonapi = MockTestSupport.members(await MockTestSupport.send(mock, Self.page2(.jsonapi, "mock_fault=loop@2")).body)
        #expect(MockTestSupport.string(MockTestSupport.members(jsonapi["links"] ?? [])["next"]) == "/jsonapi/items?page%5Bnumber%5D=1&page%5Bsize%5D=10&mock_total=25&mock_fault=loop%402")
        let slack = MockTestSupport.members(await MockTestSupport.send(mock, Self.page2(.slack, "mock_fault=loop@2")).body)
        #expect(MockTestSupport.string(MockTestSupport.members(slack["response_metadata"] ?? [])["next_cursor"]) == MockService.slackCursor(offset: 0))
    }

    @Test(arguments: [MockService.github, .gitlab, .drf, .drfPages, .jsonapi, .slack])
    func loopIsDetectedByAWalker(service: MockService) async {
        // Page 3 is the last page: the loop fault adds a next link even there. The walker reads
        // page 1 again under its link URL, then meets page 2's URL a second time.
        for page in [2, 3] {
            let walk = await MockWalkers.walk(service, MockUpstream(), total: 25, extra: "mock_fault=loop@\(page)")
            #expect(walk.failure?.hasPrefix("loop back to") == true, "\(service) loop@\(page): \(walk.failure ?? "nil")")
            #expect(walk.targets.count == page + 1)
            #expect(walk.items.count == min(page * 10, 25) + 10)
            #expect(Array(walk.items.suffix(10)) == Array(MockDataset.items(total: 10)))
        }
    }

    @Test func foreignPointsToAnotherOrigin() async {
        let mock = MockUpstream()
        let foreign = "http://127.0.0.2:8080"
        let github = await MockTestSupport.send(mock, Self.page2(.github, "mock_fault=foreign@2"))
        #expect(MockTestSupport.link(github.header("Link"), rel: "next") == "\(foreign)/repositories/1/items?per_page=10&mock_total=25&mock_fault=foreign%402&page=3")
        #expect(MockTestSupport.link(github.header("Link"), rel: "prev")?.hasPrefix(origin) == true)
        let gitlab = await MockTestSupport.send(mock, Self.page2(.gitlab, "mock_fault=foreign@2"))
        #expect(MockTestSupport.link(gitlab.header("Link"), rel: "next")?.hasPrefix("\(foreign)/gitlab/items?") == true)
        let drf = MockTestSupport.members(await MockTestSupport.send(mock, Self.page2(.drf, "mock_fault=foreign@2")).body)
        #expect(MockTestSupport.string(drf["next"]) == "\(foreign)/drf/items/?limit=10&mock_fault=foreign%402&mock_total=25&offset=20")
        let jsonapi = MockTestSupport.members(await MockTestSupport.send(mock, Self.page2(.jsonapi, "mock_fault=foreign@2")).body)
        #expect(MockTestSupport.string(MockTestSupport.members(jsonapi["links"] ?? [])["next"]) == "\(foreign)/jsonapi/items?page%5Bnumber%5D=3&page%5Bsize%5D=10&mock_total=25&mock_fault=foreign%402")
        let noPort = await MockTestSupport.send(mock, "/github/items?mock_fault=foreign@1", host: "example.test")
        #expect(MockTestSupport.link(noPort.header("Link"), rel: "next") == "http://127.0.0.2/repositories/1/items?mock_fault=foreign%401&page=2")
    }

    /// GitLab is left out: its walker follows X-Next-Page (a number), not the Link header.
    @Test(arguments: [MockService.github, .drf, .drfPages, .jsonapi])
    func foreignIsDetectedByAWalker(service: MockService) async {
        for page in [1, 3] {
            let walk = await MockWalkers.walk(service, MockUpstream(), total: 25, extra: "mock_fault=foreign@\(page)")
            #expect(walk.failure?.hasPrefix("foreign next link http://127.0.0.2:8080/") == true, "\(service): \(walk.failure ?? "nil")")
            #expect(walk.targets.count == page)
        }
    }

    @Test func faultsStopAWalkAtPageK() async {
        let walk = await MockWalkers.walk(.github, MockUpstream(), total: 25, extra: "mock_fault=status500@3")
        #expect(walk.failure?.hasPrefix("status 500") == true)
        #expect(walk.items == Array(MockDataset.items(total: 25).prefix(20)))
    }

    @Test func stallWaitsUntilCancelled() async throws {
        let mock = MockUpstream()
        // Other pages answer at once.
        #expect(await MockTestSupport.send(mock, "/plain/items?mock_fault=stall@2").status == 200)
        let task = Task { await MockTestSupport.send(mock, "/plain/items?page=2&mock_fault=stall@2") }
        try await poll("the stalled page is in flight") { mock.log.inFlight > 0 }
        #expect(mock.log.inFlight == 1)
        task.cancel()
        let response = await task.value
        #expect(response.status == 503)
        #expect(mock.log.inFlight == 0)
        #expect(mock.log.count == 2)
    }
}

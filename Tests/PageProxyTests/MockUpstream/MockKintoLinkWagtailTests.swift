import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The mock's copies of Kinto, drf-link-header-pagination and Wagtail's API v2 (scripts/real-upstreams, real11), and
/// the `repeatPage` fault.
@Suite struct MockKintoLinkWagtailTests {
    let origin = MockTestSupport.origin

    @Test("Kinto: Next-Page is absolute, keeps the request's parameters, and names a new token on every request; none on a full last page")
    func kintoNextPage() async throws {
        let mock = MockUpstream()
        let first = await MockTestSupport.send(mock, "/kinto/items?_sort=id&_limit=10&mock_total=25")
        let again = await MockTestSupport.send(mock, "/kinto/items?_sort=id&_limit=10&mock_total=25")
        let next = try #require(first.header("Next-Page"))
        #expect(next.hasPrefix("\(origin)/kinto/items?_sort=id&_limit=10&mock_total=25&_token="))
        #expect(again.header("Next-Page") != next)
        #expect(first.body == again.body)
        #expect(first.header("Cache-Control") == "no-cache, no-store")
        #expect(MockTestSupport.text(first).hasPrefix(#"{"data":[{"#))
        let last = await MockTestSupport.send(mock, "/kinto/items?_limit=10&mock_total=20&_token=\(MockQuery.encode(MockService.kintoToken(offset: 10)))")
        #expect(last.header("Next-Page") == nil)
        let bad = await MockTestSupport.send(mock, "/kinto/items?_limit=10&_token=nonsense")
        #expect(bad.status == 400)
        // No _limit: everything, up to the largest page.
        let all = await MockTestSupport.send(mock, "/kinto/items?mock_total=30")
        #expect(all.header("Next-Page") == nil)
        #expect(all.body == MockJSON.envelope(#"{"data":"#, MockDataset.mergedJSON(total: 30), "}"))
    }

    @Test("drf-link-header-pagination: Link prev, next, first, last in that order, each where it applies")
    func drfLinkHeader() async throws {
        let mock = MockUpstream()
        let page2 = await MockTestSupport.send(mock, "/drf-link/items/?page=2&page_size=10&mock_total=35")
        let base = "\(origin)/drf-link/items/?mock_total=35"
        #expect(page2.header("Link") == #"<\#(base)&page_size=10>; rel="prev", <\#(base)&page=3&page_size=10>; rel="next", <\#(base)&page_size=10>; rel="first", <\#(base)&page=4&page_size=10>; rel="last""#)
        let first = await MockTestSupport.send(mock, "/drf-link/items/?page_size=10&mock_total=35")
        #expect(first.header("Link") == #"<\#(base)&page=2&page_size=10>; rel="next", <\#(base)&page=4&page_size=10>; rel="last""#)
        let last = await MockTestSupport.send(mock, "/drf-link/items/?page=4&page_size=10&mock_total=35")
        #expect(last.header("Link")?.contains(#"rel="next""#) == false)
        #expect(await MockTestSupport.send(mock, "/drf-link/items/?page=5&page_size=10&mock_total=35").status == 404)
    }

    @Test("drf-link-header-pagination's limit-offset: next and last by offset, first on every page")
    func drfLinkOffsetHeader() async {
        let mock = MockUpstream()
        let base = "\(origin)/drf-link-offset/items/?limit=10&mock_total=35"
        let first = await MockTestSupport.send(mock, "/drf-link-offset/items/?limit=10&mock_total=35")
        #expect(first.header("Link") == #"<\#(base)&offset=10>; rel="next", <\#(base)>; rel="first", <\#(base)&offset=30>; rel="last""#)
        let last = await MockTestSupport.send(mock, "/drf-link-offset/items/?limit=10&mock_total=35&offset=30")
        #expect(last.header("Link") == #"<\#(base)&offset=20>; rel="prev", <\#(base)>; rel="first""#)
    }

    @Test("Wagtail: meta.total_count and items, no link; a limit above the largest page is a 400")
    func wagtail() async {
        let mock = MockUpstream()
        let page = await MockTestSupport.send(mock, "/wagtail/items/?limit=10&offset=10&mock_total=25")
        #expect(MockTestSupport.text(page).hasPrefix("{\n    \"meta\": {\n        \"total_count\": 25\n    },\n    \"items\": [{\"id\": 11, "))
        let tooMany = await MockTestSupport.send(mock, "/wagtail/items/?limit=101")
        #expect(tooMany.status == 400)
        #expect(MockTestSupport.text(tooMany) == #"{"message": "limit cannot be higher than 100"}"#)
    }

    @Test("repeatPage@K: page K's next link names page K again under a new URL, every time", arguments: [MockService.drfPages, .drfLink, .drfLinkOffset, .kinto])
    func repeatPage(service: MockService) async {
        let walk = await MockWalkers.walk(service, MockUpstream(), total: 50, extra: "mock_fault=repeatPage@2")
        // The walker stops at its page limit: every URL is new, the items are page 2's again and again.
        #expect(walk.failure == "more than \(MockWalkers.maxPages) pages", "\(service)")
        #expect(Array(walk.items[20..<30]) == Array(walk.items[10..<20]))
        #expect(Set(walk.targets).count == walk.targets.count)
    }
}

import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The mock's copies of JupyterHub's REST API, Piccolo API's PiccoloCRUD and Mailman 3's REST API
/// (scripts/real-upstreams, real13).
@Suite struct MockJupyterHubPiccoloTests {
    let origin = MockTestSupport.origin
    private static let paginated = [(name: "Accept", value: MockAccept.jupyterHubPagination)]

    @Test("the two walked by their own rules yield the dataset: JupyterHub's next URLs, Piccolo's numbers until an empty page",
          arguments: [MockService.jupyterhub, .piccolo, .mailman])
    func walks(service: MockService) async {
        for total in [0, 3, 10, 25] {
            let walk = await MockWalkers.walk(service, MockUpstream(), total: total, pageSize: 10)
            #expect(walk.failure == nil, "\(service) \(total): \(walk.failure ?? "")")
            #expect(walk.items == MockDataset.items(total: total), "\(service) \(total)")
            // Piccolo says nothing of more pages: its walk asks past the last page until one is empty.
            let pages = service == .piccolo ? (total == 0 ? 1 : (total + 9) / 10 + 1) : max(1, (total + 9) / 10)
            #expect(walk.targets.count == pages, "\(service) \(total)")
        }
    }

    @Test("JupyterHub: _pagination with an absolute next URL (offset and limit set in the request's query), null at the end")
    func jupyterHub() async throws {
        let mock = MockUpstream()
        let first = await MockTestSupport.send(mock, "/jupyterhub/items?limit=10&mock_total=25", headers: Self.paginated)
        let next = #"{"offset": 10, "limit": 10, "url": "\#(origin)/jupyterhub/items?limit=10&mock_total=25&offset=10"}"#
        #expect(MockTestSupport.text(first).hasPrefix(#"{"items": [{"#))
        #expect(MockTestSupport.text(first).hasSuffix(#"}], "_pagination": {"offset": 0, "limit": 10, "total": 25, "next": \#(next)}}"#))
        // A request that names the offset first keeps it first, and a repeated one becomes one.
        let second = await MockTestSupport.send(mock, "/jupyterhub/items?offset=10&mock_total=25&offset=3&limit=10", headers: Self.paginated)
        #expect(MockTestSupport.text(second).contains(#""url": "\#(origin)/jupyterhub/items?offset=20&mock_total=25&limit=10"}"#))
        let last = await MockTestSupport.send(mock, "/jupyterhub/items?limit=10&offset=20&mock_total=25", headers: Self.paginated)
        #expect(MockTestSupport.text(last).hasSuffix(#""_pagination": {"offset": 20, "limit": 10, "total": 25, "next": null}}"#))
        // 20 by default; a limit above the largest page (100) is read as 100 without a word; abs() of a negative one.
        let plain = await MockTestSupport.send(mock, "/jupyterhub/items?mock_total=250", headers: Self.paginated)
        #expect(MockTestSupport.text(plain).contains(#""limit": 20, "total": 250"#))
        let capped = await MockTestSupport.send(mock, "/jupyterhub/items?limit=500&mock_total=250", headers: Self.paginated)
        #expect(capped.status == 200)
        #expect(MockTestSupport.text(capped).contains(#""offset": 0, "limit": 100, "total": 250, "next": {"offset": 100, "limit": 100"#))
        let negative = await MockTestSupport.send(mock, "/jupyterhub/items?limit=-5&mock_total=250", headers: Self.paginated)
        #expect(MockTestSupport.text(negative).contains(#""limit": 5,"#))
        let bad = await MockTestSupport.send(mock, "/jupyterhub/items?limit=ten", headers: Self.paginated)
        #expect(bad.status == 400)
        #expect(MockTestSupport.text(bad).contains("offset and limit must be integers"))
    }

    @Test("JupyterHub without its media type in Accept: a bare array of the largest page, nothing saying more exist")
    func jupyterHubUnpaginated() async throws {
        let mock = MockUpstream()
        for accept in [[], [(name: "Accept", value: "application/json")], [(name: "Accept", value: "*/*")]] {
            let response = await MockTestSupport.send(mock, "/jupyterhub/items?mock_total=250", headers: accept)
            #expect(response.body == MockDataset.page(offset: 0, count: 100, total: 250), "\(accept)")
        }
        let listed = await MockTestSupport.send(
            mock, "/jupyterhub/items?mock_total=250", headers: [(name: "Accept", value: "application/json, APPLICATION/JupyterHub-Pagination+JSON")])
        #expect(MockTestSupport.text(listed).hasPrefix(#"{"items": "#))
    }

    @Test("Piccolo: {\"rows\": …} alone, __page and __page_size, a Content-Range in react-admin's form on request, a size above the largest refused")
    func piccolo() async throws {
        let mock = MockUpstream()
        let first = await MockTestSupport.send(mock, "/piccolo/items?__page_size=10&mock_total=25")
        #expect(first.body == MockJSON.envelope(#"{"rows":"#, MockDataset.page(offset: 0, count: 10, total: 25), "}"))
        #expect(first.header("Content-Range") == nil)
        let third = await MockTestSupport.send(mock, "/piccolo/items?__page_size=10&__page=3&__range_header=true&mock_total=25")
        #expect(third.body == MockJSON.envelope(#"{"rows":"#, MockDataset.page(offset: 20, count: 5, total: 25), "}"))
        #expect(third.header("Content-Range") == "items 20-24/25")
        let past = await MockTestSupport.send(mock, "/piccolo/items?__page_size=10&__page=4&__range_header=True&mock_total=25")
        #expect(MockTestSupport.text(past) == #"{"rows":[]}"#)
        #expect(past.header("Content-Range") == "items 30-30/25")
        // Page 0 is the first page; 20 a page by default.
        let zero = await MockTestSupport.send(mock, "/piccolo/items?__page=0&mock_total=25")
        #expect(zero.body == MockJSON.envelope(#"{"rows":"#, MockDataset.page(offset: 0, count: 20, total: 25), "}"))
        let tooLarge = await MockTestSupport.send(mock, "/piccolo/items?__page_size=101")
        #expect(tooLarge.status == 403)
        #expect(MockTestSupport.text(tooLarge) == #"{"error":"The page size limit has been exceeded"}"#)
        let bad = await MockTestSupport.send(mock, "/piccolo/items?__page=two")
        #expect(bad.status == 400)
        #expect(MockTestSupport.text(bad) == "Unrecognised __page argument - two")
    }

    @Test("Mailman: sorted keys, entries left out past the end, count and page both or neither")
    func mailman() async throws {
        let mock = MockUpstream()
        let first = await MockTestSupport.send(mock, "/mailman/items?count=10&page=3&mock_total=25")
        #expect(MockTestSupport.text(first).hasPrefix(#"{"entries": [{"#))
        #expect(MockTestSupport.text(first).contains(#"}], "http_etag": "\""#))
        #expect(MockTestSupport.text(first).hasSuffix(#"\"", "start": 20, "total_size": 25}"#))
        let past = await MockTestSupport.send(mock, "/mailman/items?count=10&page=4&mock_total=25")
        #expect(MockTestSupport.text(past).hasPrefix(#"{"http_etag": "\""#))
        #expect(MockTestSupport.text(past).hasSuffix(#"\"", "start": 30, "total_size": 25}"#))
        let all = await MockTestSupport.send(mock, "/mailman/items?mock_total=25")
        #expect(MockTestSupport.text(all).contains(#""start": 0, "total_size": 25}"#))
        #expect(MockTestSupport.members(MockTestSupport.compacted(all.body)[...])["entries"].map { MockTestSupport.elements($0).count } == 25)
        for half in ["count=10", "page=2"] {
            let response = await MockTestSupport.send(mock, "/mailman/items?\(half)&mock_total=25")
            #expect(response.status == 500, "\(half)")
        }
    }
}

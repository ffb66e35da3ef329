import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The mock's copies of MLflow's tracking server, Mastodon and localstripe (scripts/real-upstreams, real12).
@Suite struct MockMLflowMastodonStripeTests {
    let origin = MockTestSupport.origin

    @Test("the three walked with their own next mechanisms yield the dataset, each page asked once",
          arguments: [MockService.mlflow, .mastodon, .localstripe])
    func walks(service: MockService) async {
        for total in [0, 3, 10, 25] {
            let walk = await MockWalkers.walk(service, MockUpstream(), total: total, pageSize: 10)
            #expect(walk.failure == nil, "\(service) \(total): \(walk.failure ?? "")")
            #expect(walk.items == MockDataset.items(total: total), "\(service) \(total)")
            // Mastodon's full pages link on, so a full last page (10) costs the empty page after it.
            let pages = service == .mastodon ? total / 10 + 1 : max(1, (total + 9) / 10)
            #expect(walk.targets.count == pages, "\(service) \(total)")
        }
    }

    @Test("MLflow: an indented body, a base64 token absent on the last page, `{}` for no items, max_results required")
    func mlflow() async throws {
        let mock = MockUpstream()
        let first = await MockTestSupport.send(mock, "/mlflow/items?max_results=10&mock_total=25")
        #expect(MockTestSupport.text(first).hasPrefix("{\n  \"experiments\": [{"))
        #expect(MockTestSupport.text(first).hasSuffix(",\n  \"next_page_token\": \"eyJvZmZzZXQiOiAxMH0=\"\n}"))
        let last = await MockTestSupport.send(mock, "/mlflow/items?max_results=10&mock_total=25&page_token=eyJvZmZzZXQiOiAyMH0%3D")
        #expect(MockTestSupport.text(last).hasSuffix("}]\n}"))
        #expect(!MockTestSupport.text(last).contains("next_page_token"))
        let none = await MockTestSupport.send(mock, "/mlflow/items?max_results=10&mock_total=0")
        #expect(MockTestSupport.text(none) == "{}")
        let noSize = await MockTestSupport.send(mock, "/mlflow/items?mock_total=25")
        #expect(noSize.status == 400)
        #expect(MockTestSupport.text(noSize).contains("Invalid value 0 for parameter 'max_results' supplied"))
        let badToken = await MockTestSupport.send(mock, "/mlflow/items?max_results=10&page_token=nonsense")
        #expect(badToken.status == 400)
        #expect(MockService.mlflowOffset(token: MockService.mlflowToken(offset: 1000)) == 1000)
    }

    @Test("Mastodon: Link next by max_id (the page's last id) and prev by min_id (its first), the other parameters kept; a full last page links on; no-store and an ISO reset")
    func mastodon() async throws {
        let mock = MockUpstream()
        let page2 = await MockTestSupport.send(mock, "/mastodon/items?limit=10&mock_total=20&max_id=10")
        let base = "\(origin)/mastodon/items?limit=10&mock_total=20"
        #expect(page2.header("Link") == #"<\#(base)&max_id=20>; rel="next", <\#(base)&min_id=11>; rel="prev""#)
        #expect(page2.header("Cache-Control") == "private, no-store")
        let reset = try #require(page2.header("X-RateLimit-Reset"))
        #expect(reset.hasSuffix(".000000Z"))
        #expect(page2.header("X-RateLimit-Remaining") == "299")
        let after = await MockTestSupport.send(mock, "/mastodon/items?limit=10&mock_total=20&max_id=20")
        #expect(MockTestSupport.text(after) == "[]")
        #expect(after.header("Link") == nil)
        let short = await MockTestSupport.send(mock, "/mastodon/items?limit=10&mock_total=25&max_id=20")
        #expect(short.header("Link") == #"<\#(origin)/mastodon/items?limit=10&mock_total=25&min_id=21>; rel="prev""#)
    }

    @Test("localstripe: sorted keys with has_more after the items, total_count, and an unknown starting_after starts again")
    func localstripe() async throws {
        let mock = MockUpstream()
        let first = await MockTestSupport.send(mock, "/localstripe/items?limit=10&mock_total=25")
        #expect(MockTestSupport.text(first).hasPrefix("{\n  \"data\": [{"))
        #expect(MockTestSupport.text(first).hasSuffix(
            "],\n  \"has_more\": true,\n  \"object\": \"list\",\n  \"total_count\": 25,\n  \"url\": \"/v1/customers\"\n}\n"))
        let unknown = await MockTestSupport.send(mock, "/localstripe/items?limit=10&mock_total=25&starting_after=cus_nobody")
        #expect(unknown.body == first.body)
    }
}

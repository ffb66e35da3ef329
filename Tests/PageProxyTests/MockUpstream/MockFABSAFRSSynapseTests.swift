import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The mock's copies of Flask-AppBuilder's REST API, SAFRS and matrix-synapse's admin API (scripts/real-upstreams, real14).
@Suite struct MockFABSAFRSSynapseTests {
    @Test("each walked by its own rules yields the dataset: FAB's Rison pages to the count, SAFRS's next or last links, Synapse's next_token",
          arguments: [MockService.fab, .safrs, .synapse])
    func walks(service: MockService) async {
        for total in [0, 3, 10, 25, 30] {
            let walk = await MockWalkers.walk(service, MockUpstream(), total: total, pageSize: 10)
            #expect(walk.failure == nil, "\(service) \(total): \(walk.failure ?? "")")
            #expect(walk.items == MockDataset.items(total: total), "\(service) \(total)")
        }
    }

    @Test("FAB: the page only inside q (from 0), `page=2` ignored, a size above the largest read as the largest, bad Rison a 400")
    func fab() async throws {
        let mock = MockUpstream()
        let first = MockTestSupport.text(await MockTestSupport.send(mock, "/fab/items?q=(page_size:10)&mock_total=25"))
        #expect(first.hasPrefix(#"{"count":25,"description_columns":{},"ids":[1,2,3,4,5,6,7,8,9,10],"label_columns":"#))
        #expect(first.contains(#""result":[{"id":1,"#))
        let ignored = MockTestSupport.text(await MockTestSupport.send(mock, "/fab/items?q=(page_size:10)&page=2&mock_total=25"))
        #expect(ignored == first)
        let second = MockTestSupport.text(await MockTestSupport.send(mock, "/fab/items?q=(page:1,page_size:10)&mock_total=25"))
        #expect(second.contains(#""ids":[11,"#))
        let past = MockTestSupport.text(await MockTestSupport.send(mock, "/fab/items?q=(page:9,page_size:10)&mock_total=25"))
        #expect(past.contains(#""ids":[],"#) && past.hasSuffix(#""result":[]}"#))
        let capped = MockTestSupport.text(await MockTestSupport.send(mock, "/fab/items?q=(page_size:500)&mock_total=250"))
        #expect(capped.contains(#",99,100],"label_columns""#))
        let bad = await MockTestSupport.send(mock, "/fab/items?q=page:1")
        #expect(bad.status == 400)
    }

    @Test("SAFRS: links as its _pagination_links computes them, no next on the page before the one last names")
    func safrs() async throws {
        let mock = MockUpstream()
        let base = "/safrs/items?mock_total=25&page[offset]="
        let first = MockTestSupport.text(await MockTestSupport.send(mock, base + "0&page[limit]=10"))
        #expect(first.contains(#""links":{"last":"/safrs/items?mock_total=25&page[offset]=20&page[limit]=10","next":"/safrs/items?mock_total=25&page[offset]=10&page[limit]=10","self":"/safrs/items?mock_total=25&page[offset]=0&page[limit]=10"},"meta":{"count":25,"limit":10,"total":25}}"#), "\(first)")
        let second = MockTestSupport.text(await MockTestSupport.send(mock, base + "10&page[limit]=10"))
        #expect(!second.contains(#""next":"#), "\(second)")
        #expect(second.contains(#""last":"/safrs/items?mock_total=25&page[offset]=20&page[limit]=10""#))
        let last = MockTestSupport.text(await MockTestSupport.send(mock, base + "20&page[limit]=10"))
        #expect(!last.contains(#""next":"#) && !last.contains(#""last":"#), "\(last)")
    }

    @Test("Synapse: next_token the next offset as a string after the total, absent on the last page; `offset` not read")
    func synapse() async throws {
        let mock = MockUpstream()
        let first = await MockTestSupport.send(mock, "/synapse/items?from=0&limit=10&mock_total=25")
        #expect(MockTestSupport.text(first).hasPrefix(#"{"users":[{"id":1,"#))
        #expect(MockTestSupport.text(first).hasSuffix(#"}],"total":25,"next_token":"10"}"#))
        #expect(first.header("Cache-Control") == "no-cache, no-store, must-revalidate")
        let ignored = await MockTestSupport.send(mock, "/synapse/items?offset=10&limit=10&mock_total=25")
        #expect(MockTestSupport.text(ignored) == MockTestSupport.text(first))
        let last = await MockTestSupport.send(mock, "/synapse/items?from=20&limit=10&mock_total=25")
        #expect(MockTestSupport.text(last).hasSuffix(#"}],"total":25}"#))
    }
}

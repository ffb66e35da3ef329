import Testing
@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// Every route, walked with its own next mechanism, yields exactly the dataset, byte for byte.
@Suite struct MockWalkTests {
    static let totals = [0, 3, 10, 20, 25, 250]

    private func check(_ service: MockService, total: Int) async {
        let mock = MockUpstream(options: MockUpstreamOptions())
        let walk = await MockWalkers.walk(service, mock, total: total, pageSize: 10)
        #expect(walk.failure == nil, "\(service): \(walk.failure ?? "")")
        #expect(walk.items == MockDataset.items(total: total), "\(service) total \(total)")
        var merged: [UInt8] = [UInt8(ascii: "[")]
        merged += walk.items.map { $0 }.joined(separator: [UInt8(ascii: ",")])
        merged.append(UInt8(ascii: "]"))
        #expect(merged == MockDataset.mergedJSON(total: total))
        for response in walk.responses {
            // JSON:API has its own media type (RFC 7159 JSON with JSON:API's rules).
            let type = service == .jsonapi ? "application/vnd.api+json" : "application/json; charset=utf-8"
            #expect(response.header("Content-Type") == type)
            #expect(response.header("Content-Length") == String(response.body.count))
        }
        #expect(mock.log.count == walk.targets.count)
        #expect(mock.log.inFlight == 0)
    }

    /// Pages a walk needs with page size 10, counting the empty page a short-page walker reads.
    private func pages(_ total: Int) -> Int { (total + 9) / 10 }

    @Test(arguments: totals) func plain(total: Int) async {
        await check(.plain, total: total)
    }

    @Test(arguments: totals) func wrapped(total: Int) async {
        await check(.wrapped, total: total)
    }

    @Test(arguments: totals) func github(total: Int) async {
        await check(.github, total: total)
    }

    @Test(arguments: totals) func gitlab(total: Int) async {
        await check(.gitlab, total: total)
    }

    @Test(arguments: totals) func drfLimitOffset(total: Int) async {
        await check(.drf, total: total)
    }

    @Test(arguments: totals) func drfPageNumber(total: Int) async {
        await check(.drfPages, total: total)
    }

    @Test(arguments: totals) func jsonapi(total: Int) async {
        await check(.jsonapi, total: total)
    }

    @Test(arguments: totals) func slack(total: Int) async {
        await check(.slack, total: total)
    }

    @Test(arguments: totals) func stripe(total: Int) async {
        await check(.stripe, total: total)
    }

    @Test(arguments: totals) func offset(total: Int) async {
        await check(.offset, total: total)
    }

    @Test(arguments: totals) func litestar(total: Int) async {
        await check(.litestar, total: total)
    }

    @Test(arguments: totals) func kinto(total: Int) async {
        await check(.kinto, total: total)
    }

    @Test(arguments: totals) func drfLink(total: Int) async {
        await check(.drfLink, total: total)
        await check(.drfLinkOffset, total: total)
    }

    @Test func linkFollowersRequestExactlyThePagesNeeded() async {
        for service in [MockService.github, .drf, .drfPages, .jsonapi, .slack, .stripe, .gitlab, .kinto, .drfLink, .drfLinkOffset] {
            for total in [1, 10, 25, 250] {
                let walk = await MockWalkers.walk(service, MockUpstream(), total: total, pageSize: 10)
                #expect(walk.targets.count == pages(total), "\(service) total \(total)")
            }
        }
    }

    @Test func defaultPageSizeAndCap() async {
        let mock = MockUpstream(options: MockUpstreamOptions(totalItems: 250, pageSize: 20, maxPageSize: 50))
        let first = await MockTestSupport.send(mock, "/plain/items")
        #expect(MockTestSupport.elements(first.body[...]).count == 20)
        let capped = await MockTestSupport.send(mock, "/plain/items?per_page=1000")
        #expect(MockTestSupport.elements(capped.body[...]).count == 50)
        let walk = await MockWalkers.walk(.github, mock, total: 250, pageSize: 1000)
        #expect(walk.items == MockDataset.items(total: 250))
        #expect(walk.targets.count == 5)
    }

    @Test func optionsTotalIsTheDefaultDataset() async {
        let mock = MockUpstream(options: MockUpstreamOptions(totalItems: 7))
        let response = await MockTestSupport.send(mock, "/plain/items?per_page=100")
        #expect(response.body == MockDataset.mergedJSON(total: 7))
    }
}

import Testing
@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// The exact wire format of each imitated service.
@Suite struct MockWireFormatTests {
    let mock = MockUpstream()
    let origin = MockTestSupport.origin

    private func get(_ target: String) async -> MockResponse {
        await MockTestSupport.send(mock, target)
    }

    private func body(_ target: String) async -> String {
        MockTestSupport.text(await get(target))
    }

    @Test func githubLinkOnFirstMiddleAndLastPage() async {
        // Like GitHub's, the links point to another path that serves the same data.
        let base = "\(origin)/repositories/1/items?per_page=10&mock_total=25"
        let first = await get("/github/items?per_page=10&mock_total=25")
        #expect(first.header("Link") == #"<\#(base)&page=2>; rel="next", <\#(base)&page=3>; rel="last""#)
        let middle = await get("/github/items?per_page=10&mock_total=25&page=2")
        #expect(middle.header("Link") == #"<\#(base)&page=1>; rel="prev", <\#(base)&page=3>; rel="next", <\#(base)&page=3>; rel="last", <\#(base)&page=1>; rel="first""#)
        let last = await get("/github/items?page=3&per_page=10&mock_total=25")
        #expect(last.header("Link") == #"<\#(base)&page=2>; rel="prev", <\#(base)&page=1>; rel="first""#)
        #expect(last.body == MockDataset.page(offset: 20, count: 10, total: 25))
        let linked = await get("/repositories/1/items?page=3&per_page=10&mock_total=25")
        #expect(linked.body == last.body)
        #expect(linked.header("Link") == last.header("Link"))
    }

    @Test func githubSinglePageHasNoLinkAndPastTheEndIsEmpty() async {
        let single = await get("/github/items?mock_total=5")
        #expect(single.header("Link") == nil)
        #expect(single.body == MockDataset.mergedJSON(total: 5))
        let empty = await get("/github/items?mock_total=0")
        #expect(empty.header("Link") == nil)
        #expect(MockTestSupport.text(empty) == "[]")
        let past = await get("/github/items?mock_total=5&page=4")
        #expect(MockTestSupport.text(past) == "[]")
    }

    @Test func githubLinksWithoutPerPageKeepDefaults() async {
        // No per_page in the request: GitHub's links carry only the other parameters and page.
        let first = await get("/github/items?state=all")
        #expect(MockTestSupport.link(first.header("Link"), rel: "next") == "\(origin)/repositories/1/items?state=all&page=2")
        #expect(MockTestSupport.link(first.header("Link"), rel: "last") == "\(origin)/repositories/1/items?state=all&page=13")
    }

    @Test func gitlabHeaders() async {
        let response = await get("/gitlab/items?page=2&per_page=10&mock_total=25")
        let base = "\(origin)/gitlab/items?mock_total=25"
        let names = response.headers.map(\.name)
        #expect(names == ["Content-Type", "Content-Length", "X-Per-Page", "X-Page", "X-Next-Page", "X-Prev-Page", "Link", "X-Total", "X-Total-Pages", "ETag"])
        #expect(response.header("X-Per-Page") == "10")
        #expect(response.header("X-Page") == "2")
        #expect(response.header("X-Next-Page") == "3")
        #expect(response.header("X-Prev-Page") == "1")
        #expect(response.header("X-Total") == "25")
        #expect(response.header("X-Total-Pages") == "3")
        #expect(response.header("Link") == #"<\#(base)&page=1&per_page=10>; rel="prev", <\#(base)&page=3&per_page=10>; rel="next", <\#(base)&page=1&per_page=10>; rel="first", <\#(base)&page=3&per_page=10>; rel="last""#)
    }

    @Test func gitlabFirstLastAndEmpty() async {
        let first = await get("/gitlab/items?mock_total=25&per_page=10")
        #expect(first.header("X-Prev-Page") == "")
        #expect(first.header("X-Next-Page") == "2")
        #expect(first.header("Link") == #"<\#(origin)/gitlab/items?mock_total=25&page=2&per_page=10>; rel="next", <\#(origin)/gitlab/items?mock_total=25&page=1&per_page=10>; rel="first", <\#(origin)/gitlab/items?mock_total=25&page=3&per_page=10>; rel="last""#)
        let last = await get("/gitlab/items?mock_total=25&per_page=10&page=3")
        #expect(last.header("X-Next-Page") == "")
        #expect(last.header("X-Prev-Page") == "2")
        let empty = await get("/gitlab/items?mock_total=0")
        #expect(empty.header("X-Total") == "0")
        #expect(empty.header("X-Total-Pages") == "1")
        #expect(empty.header("X-Per-Page") == "20")
        #expect(empty.header("X-Next-Page") == "")
        #expect(empty.header("Link") == #"<\#(origin)/gitlab/items?mock_total=0&page=1&per_page=20>; rel="first", <\#(origin)/gitlab/items?mock_total=0&page=1&per_page=20>; rel="last""#)
    }

    @Test func jsonapiRelativeLinks() async {
        let middle = await body("/jsonapi/items?page[number]=2&page[size]=10&mock_total=25")
        let page = "/jsonapi/items?page%5Bnumber%5D="
        let rest = "&page%5Bsize%5D=10&mock_total=25"
        let expected = MockJSON.envelope(#"{"data":"#, MockDataset.page(offset: 10, count: 10, total: 25),
            #","links":{"self":"\#(page)2\#(rest)","first":"\#(page)1\#(rest)","prev":"\#(page)1\#(rest)","next":"\#(page)3\#(rest)","last":"\#(page)3\#(rest)"},"meta":{"total":25}}"#)
        #expect(middle == String(decoding: expected, as: UTF8.self))
        // Percent-encoded brackets in the request are accepted too; next is null on the last page.
        let last = MockTestSupport.members(await get("/jsonapi/items?page%5Bnumber%5D=3&page%5Bsize%5D=10&mock_total=25").body)
        let links = MockTestSupport.members(last["links"] ?? [])
        #expect(MockTestSupport.raw(links["next"]) == "null")
        #expect(MockTestSupport.string(links["prev"]) == "\(page)2\(rest)")
        #expect(MockTestSupport.elements(last["data"] ?? []).count == 5)
        let first = MockTestSupport.members(await get("/jsonapi/items?mock_total=25").body)
        #expect(MockTestSupport.raw(MockTestSupport.members(first["links"] ?? [])["prev"]) == "null")
    }

    @Test func drfLimitOffsetLinks() async {
        let second = MockTestSupport.members(await get("/drf/items/?limit=10&offset=10&mock_total=25").body)
        #expect(MockTestSupport.int(second["count"]) == 25)
        #expect(MockTestSupport.string(second["next"]) == "\(origin)/drf/items/?limit=10&mock_total=25&offset=20")
        #expect(MockTestSupport.string(second["previous"]) == "\(origin)/drf/items/?limit=10&mock_total=25")
        let last = MockTestSupport.members(await get("/drf/items/?limit=10&offset=20&mock_total=25").body)
        #expect(MockTestSupport.raw(last["next"]) == "null")
        #expect(MockTestSupport.string(last["previous"]) == "\(origin)/drf/items/?limit=10&mock_total=25&offset=10")
        let first = await body("/drf/items/?mock_total=25")
        #expect(first.hasPrefix(#"{"count":25,"next":"\#(origin)/drf/items/?limit=20&mock_total=25&offset=20","previous":null,"results":[{"id":1,"#))
    }

    @Test func drfPageNumberLinks() async {
        let second = MockTestSupport.members(await get("/drf-pages/items/?page=2&page_size=10&mock_total=25").body)
        #expect(MockTestSupport.string(second["next"]) == "\(origin)/drf-pages/items/?mock_total=25&page=3&page_size=10")
        #expect(MockTestSupport.string(second["previous"]) == "\(origin)/drf-pages/items/?mock_total=25&page_size=10")
        let third = MockTestSupport.members(await get("/drf-pages/items/?page=last&page_size=10&mock_total=25").body)
        #expect(MockTestSupport.raw(third["next"]) == "null")
        #expect(MockTestSupport.string(third["previous"]) == "\(origin)/drf-pages/items/?mock_total=25&page=2&page_size=10")
        let past = await get("/drf-pages/items/?page=4&page_size=10&mock_total=25")
        #expect(past.status == 404)
        #expect(MockTestSupport.text(past) == #"{"detail":"Invalid page."}"#)
        let empty = await body("/drf-pages/items/?mock_total=0")
        #expect(empty == #"{"count":0,"next":null,"previous":null,"results":[]}"#)
    }

    @Test func slackCursors() async {
        #expect(MockService.slackCursor(offset: 10) == "b2Zmc2V0OjEw")
        let first = await body("/slack/items?limit=10&mock_total=25")
        #expect(first.hasPrefix(#"{"ok":true,"members":[{"id":1,"#))
        #expect(first.hasSuffix(#"],"response_metadata":{"next_cursor":"b2Zmc2V0OjEw"}}"#))
        let last = await body("/slack/items?limit=10&mock_total=25&cursor=\(MockService.slackCursor(offset: 20))")
        #expect(last.hasSuffix(#""response_metadata":{"next_cursor":""}}"#))
    }

    @Test(arguments: ["bm9wZQ==", "!!!", "b2Zmc2V0Oi0x", "b2Zmc2V0OjI2"])
    func slackInvalidCursor(cursor: String) async {
        // "nope", not base64, "offset:-1", "offset:26" (past a total of 25).
        let response = await get("/slack/items?limit=10&mock_total=25&cursor=\(cursor)")
        #expect(response.status == 200)
        #expect(MockTestSupport.text(response) == #"{"ok":false,"error":"invalid_cursor"}"#)
    }

    @Test func stripeListAndUnknownID() async {
        let first = await body("/stripe/items?limit=10&mock_total=25")
        #expect(first.hasPrefix(#"{"object":"list","url":"/v1/items","has_more":true,"data":[{"id":1,"#))
        let last = await body("/stripe/items?limit=10&mock_total=25&starting_after=20")
        #expect(last.hasPrefix(#"{"object":"list","url":"/v1/items","has_more":false,"data":[{"id":21,"#))
        for unknown in ["26", "0", "cus_123"] {
            let response = await get("/stripe/items?limit=10&mock_total=25&starting_after=\(unknown)")
            #expect(response.status == 400)
            #expect(MockTestSupport.text(response) == #"{"error":{"type":"invalid_request_error","message":"No such object: '\#(unknown)'"}}"#)
        }
    }

    @Test func envelopes() async {
        let items = String(decoding: MockDataset.page(offset: 0, count: 3, total: 3), as: UTF8.self)
        #expect(await body("/plain/items?mock_total=3") == items)
        #expect(await body("/wrapped/items?mock_total=3") == #"{"total_count":3,"incomplete_results":false,"items":\#(items)}"#)
        #expect(await body("/offset/items?mock_total=3") == #"{"total":3,"items":\#(items)}"#)
        #expect(await body("/offset/items?mock_total=3&offset=5") == #"{"total":3,"items":[]}"#)
        #expect(await body("/plain/items?mock_total=3&page=2") == "[]")
        #expect(await body("/stripe/items?mock_total=0") == #"{"object":"list","url":"/v1/items","has_more":false,"data":[]}"#)
        #expect(await body("/slack/items?mock_total=0") == #"{"ok":true,"members":[],"response_metadata":{"next_cursor":""}}"#)
    }
}

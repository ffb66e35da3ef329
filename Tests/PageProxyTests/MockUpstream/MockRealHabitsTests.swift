import Testing

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// Habits of the real services that the mock copies (issue 12), so that the end-to-end tests meet them.
@Suite struct MockRealHabitsTests {
    let mock = MockUpstream()

    private func send(_ target: String, _ headers: [(name: String, value: String)]) async -> MockResponse {
        await mock.respond(to: MockRequest(target: target, headers: [(name: "Host", value: MockTestSupport.host)] + headers))
    }

    @Test("a rejected token is GitHub's 401 Bad credentials, in each service's own shape")
    func badTokenIs401() async {
        let github = await send("/github/items", [(name: "Authorization", value: "Bearer bad-token")])
        #expect(github.status == 401)
        #expect(MockTestSupport.text(github) == #"{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest","status":"401"}"#)
        let drf = await send("/drf/items/", [(name: "Authorization", value: "Token bad")])
        #expect(drf.status == 401)
        #expect(MockTestSupport.text(drf) == #"{"detail":"Invalid token."}"#)
        let good = await send("/github/items", [(name: "Authorization", value: "Bearer good-token")])
        #expect(good.status == 200)
    }

    @Test("mock_past_end: 404 past the end on any service, the last page again, or the service's own (pastend21)")
    func pastTheEndHabits() async {
        let four = await send("/plain/items?mock_total=20&per_page=10&page=3&mock_past_end=404", [])
        #expect(four.status == 404)
        let inside = await send("/plain/items?mock_total=20&per_page=10&page=2&mock_past_end=404", [])
        #expect(inside.status == 200)
        #expect(inside.body == MockDataset.page(offset: 10, count: 10, total: 20))
        let offset = await send("/drf/items/?mock_total=20&limit=10&offset=20&mock_past_end=404", [])
        #expect(offset.status == 404)
        // An empty list's first page is that list, not past its end.
        let none = await send("/plain/items?mock_total=0&mock_past_end=404", [])
        #expect(none.status == 200)
        let last = await send("/plain/items?mock_total=20&per_page=10&page=3&mock_past_end=last", [])
        #expect(last.body == MockDataset.page(offset: 10, count: 10, total: 20))
        let empty = await send("/plain/items?mock_total=20&per_page=10&page=3&mock_past_end=empty", [])
        #expect(MockTestSupport.text(empty) == "[]")
        let bad = await send("/plain/items?mock_past_end=sometimes", [])
        #expect(bad.status == 400)
    }

    @Test("mock_past_end=last over a series with no id (mock_period): its own last page again, not the plain items (review25 LOW)")
    func pastTheEndRepeatsAPeriodicLastPage() async {
        let lastPage = await send("/drf/items/?mock_total=40&mock_period=20&limit=10&offset=30&mock_past_end=last", [])
        let past = await send("/drf/items/?mock_total=40&mock_period=20&limit=10&offset=40&mock_past_end=last", [])
        #expect(MockTestSupport.text(lastPage).contains(#""results":[{"day":10},"#), "\(MockTestSupport.text(lastPage).prefix(200))")
        #expect(past.body == lastPage.body, "\(MockTestSupport.text(past).prefix(200))")
        let paged = await send("/plain/items?mock_total=25&mock_period=7&per_page=10&page=5&mock_past_end=last", [])
        #expect(MockTestSupport.text(paged) == #"[{"day":6},{"day":0},{"day":1},{"day":2},{"day":3}]"#)
    }

    @Test("mock_ignores=offset: every offset answered from the list's start, as an API reading its position elsewhere")
    func ignoredOffset() async {
        let read = await send("/drf/items/?mock_total=50&limit=5&offset=10", [])
        #expect(MockTestSupport.text(read).contains(#""results":[{"id":11,"#), "\(MockTestSupport.text(read).prefix(200))")
        let ignored = await send("/drf/items/?mock_total=50&limit=5&offset=10&mock_ignores=offset", [])
        #expect(MockTestSupport.text(ignored).contains(#""results":[{"id":1,"#), "\(MockTestSupport.text(ignored).prefix(200))")
    }

    @Test func unknownGitHubPathIsGitHubs404() async {
        let response = await send("/github/items/1", [])
        #expect(response.status == 404)
        #expect(MockTestSupport.text(response) == #"{"message":"Not Found","documentation_url":"https://docs.github.com/rest","status":"404"}"#)
    }

    @Test("JSON:API answers 406 unless Accept admits application/vnd.api+json")
    func jsonAPINegotiates() async {
        let json = await send("/jsonapi/items", [(name: "Accept", value: "application/json")])
        #expect(json.status == 406)
        #expect(json.header("Content-Type") == "application/vnd.api+json")
        let zero = await send("/jsonapi/items", [(name: "Accept", value: "application/json, application/vnd.api+json;q=0")])
        #expect(zero.status == 406)
        for accept in ["application/vnd.api+json", "application/json, */*;q=0.8", "application/*", "APPLICATION/VND.API+JSON"] {
            let response = await send("/jsonapi/items", [(name: "Accept", value: accept)])
            #expect(response.status == 200, "\(accept)")
        }
        #expect(await send("/jsonapi/items", []).status == 200)
    }

    @Test("Django's APPEND_SLASH: a DRF path without its slash is a 301 to the slash form, query kept, HTML body")
    func drfWithoutSlashRedirects() async {
        for (path, canonical) in [("/drf/items", "/drf/items/"), ("/drf-pages/items", "/drf-pages/items/")] {
            let response = await send(path + "?page_size=5&mock_total=12", [])
            #expect(response.status == 301)
            #expect(response.header("Location") == canonical + "?page_size=5&mock_total=12")
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(MockTestSupport.text(response).hasPrefix("<html>"))
        }
        #expect(await send("/drf/items/", []).status == 200)
    }

    @Test("GitHub's links point to another path, which serves the same pages")
    func githubLinksUseAnotherPath() async {
        let first = await send("/github/items?per_page=10&mock_total=25", [])
        let next = MockTestSupport.link(first.header("Link"), rel: "next")
        #expect(next == "\(MockTestSupport.origin)/repositories/1/items?per_page=10&mock_total=25&page=2")
        let viaLink = await send("/repositories/1/items?per_page=10&mock_total=25&page=2", [])
        let direct = await send("/github/items?per_page=10&mock_total=25&page=2", [])
        #expect(viaLink.body == direct.body)
    }
}

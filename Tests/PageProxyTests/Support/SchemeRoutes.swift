import PageProxyCore

@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// One test route per mock service, configured as a user would configure PageProxy for the real service.
enum SchemeRoutes {
    static let pageSize = 10

    static var all: [TestStack.Route] {
        var plain = PaginationScheme.PageNumber()
        plain.pageSize = pageSize
        var wrapped = plain
        wrapped.totalItemsPath = JSONPath("total_count")
        var github = PaginationScheme.LinkHeader()
        github.pageSize = pageSize
        var gitlab = PaginationScheme.NextPageHeader()
        gitlab.pageSize = pageSize
        var drf = PaginationScheme.Offset()
        drf.limit = pageSize
        drf.totalItemsPath = JSONPath("count")
        var offset = PaginationScheme.Offset()
        offset.limit = pageSize
        var drfPages = PaginationScheme.NextURLInBody()
        drfPages.nextPath = JSONPath("next")!
        var jsonAPI = PaginationScheme.NextURLInBody()
        jsonAPI.nextPath = JSONPath("links.next")!
        var slack = PaginationScheme.CursorInBody()
        slack.pageSize = pageSize
        var stripe = PaginationScheme.HasMore()
        stripe.pageSize = pageSize
        return [
            TestStack.Route(name: "plain", mockPath: "/plain/items", scheme: .pageNumber(plain)),
            TestStack.Route(name: "wrapped", mockPath: "/wrapped/items", scheme: .pageNumber(wrapped), items: JSONPath("items")!),
            TestStack.Route(name: "github", mockPath: "/github/items", scheme: .linkHeader(github)),
            TestStack.Route(name: "gitlab", mockPath: "/gitlab/items", scheme: .nextPageHeader(gitlab)),
            TestStack.Route(name: "drf", mockPath: "/drf/items/", scheme: .offset(drf), items: JSONPath("results")!),
            TestStack.Route(name: "offset", mockPath: "/offset/items", scheme: .offset(offset), items: JSONPath("items")!),
            TestStack.Route(name: "drf-pages", mockPath: "/drf-pages/items/", scheme: .nextURLInBody(drfPages), items: JSONPath("results")!),
            TestStack.Route(name: "jsonapi", mockPath: "/jsonapi/items", scheme: .nextURLInBody(jsonAPI), items: JSONPath("data")!),
            TestStack.Route(name: "slack", mockPath: "/slack/items", scheme: .cursorInBody(slack), items: JSONPath("members")!),
            TestStack.Route(name: "stripe", mockPath: "/stripe/items", scheme: .hasMore(stripe), items: JSONPath("data")!),
        ]
    }

    static var names: [String] { all.map(\.name) }

    /// The mock's JSON:API service followed by `links.next`, its `meta.total` read as the total.
    static func jsonAPIWithTotal(name: String) -> TestStack.Route {
        var scheme = PaginationScheme.NextURLInBody()
        scheme.nextPath = JSONPath("links.next")!
        scheme.totalItemsPath = JSONPath("meta.total")
        return TestStack.Route(name: name, mockPath: "/jsonapi/items", scheme: .nextURLInBody(scheme), items: JSONPath("data")!)
    }

    static var mockOptions: MockUpstreamOptions {
        var options = MockUpstreamOptions()
        options.pageSize = pageSize
        return options
    }
}

import Foundation
@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// Test-side clients: each walks one service with that service's own next mechanism.
enum MockWalkers {
    struct Walk {
        /// Raw bytes of every item collected, in order.
        var items: [[UInt8]] = []
        /// Every target requested, in order.
        var targets: [String] = []
        /// Every response received, in order.
        var responses: [MockResponse] = []
        /// Why the walk stopped early, if it did.
        var failure: String?
    }

    static let maxPages = 1_000

    /// Walks `service` from its first page with page size `pageSize` and `mock_total=total`,
    /// plus any `extra` query (e.g. "mock_fault=loop@2"), following its next mechanism.
    static func walk(
        _ service: MockService, _ mock: MockUpstream, total: Int, pageSize: Int = 10, extra: String = ""
    ) async -> Walk {
        let options = "mock_total=\(total)" + (extra.isEmpty ? "" : "&" + extra)
        var walk = Walk()
        var next: String? = switch service {
        case .plain, .wrapped, .github, .gitlab: "\(service.path)?per_page=\(pageSize)&\(options)"
        case .drf, .offset, .slack, .stripe, .ninja, .tastypie, .wagtail, .drfLinkOffset, .mastodon, .localstripe, .jupyterhub, .airflow, .reddit:
            "\(service.path)?limit=\(pageSize)&\(options)"
        case .piccolo: "\(service.path)?__page_size=\(pageSize)&\(options)"
        case .mailman: "\(service.path)?count=\(pageSize)&page=1&\(options)"
        case .fab: "\(service.path)?q=(page:0,page_size:\(pageSize))&\(options)"
        case .safrs: "\(service.path)?page[limit]=\(pageSize)&\(options)"
        case .synapse: "\(service.path)?from=0&limit=\(pageSize)&\(options)"
        case .mlflow: "\(service.path)?max_results=\(pageSize)&\(options)"
        case .kinto: "\(service.path)?_limit=\(pageSize)&\(options)"
        case .eve: "\(service.path)?max_results=\(pageSize)&\(options)"
        case .datasette: "\(service.path)?_size=\(pageSize)&_shape=objects&\(options)"
        case .drfPages, .smorest, .drfLink: "\(service.path)?page_size=\(pageSize)&\(options)"
        case .litestar: "\(service.path)?page_size=\(pageSize)&current_page=1&\(options)"
        case .jsonapi: "\(service.path)?page[size]=\(pageSize)&\(options)"
        case .spring: "\(service.path)?size=\(pageSize)&\(options)"
        case .graph: "\(service.path)?$top=\(pageSize)&\(options)"
        case .aspnet: "\(service.path)?pageSize=\(pageSize)&\(options)"
        case .facets: "\(service.path)?per_page=\(pageSize)&\(options)"
        case .graphene, .strawberry: "\(service.path)?variables=\(MockQuery.encode(#"{"first":\#(pageSize)}"#))&\(options)"
        case .datatables: "\(service.path)?start=0&length=\(pageSize)&\(options)"
        case .zendesk: "\(service.path)?page[size]=\(pageSize)&\(options)"
        case .notion: "\(service.path)?page_size=\(pageSize)&\(options)"
        case .mediawiki: "\(service.path)?action=query&list=allpages&aplimit=\(pageSize)&\(options)"
        case .roundup: "\(service.path)?@page_size=\(pageSize)&\(options)"
        }
        var page = 1
        var collected = 0
        while let target = next {
            guard walk.targets.count < maxPages else {
                walk.failure = "more than \(maxPages) pages"
                break
            }
            if walk.targets.contains(target) {
                walk.failure = "loop back to \(target)"
                break
            }
            walk.targets.append(target)
            // JupyterHub paginates only for a client that asks for its pagination media type.
            let accept = service == .jupyterhub ? [(name: "Accept", value: MockAccept.jupyterHubPagination)] : []
            let response = await MockTestSupport.send(mock, target, headers: accept)
            walk.responses.append(response)
            guard response.status == 200 else {
                walk.failure = "status \(response.status) for \(target)"
                break
            }
            let body = ([.mlflow, .localstripe, .jupyterhub, .mailman].contains(service) ? MockTestSupport.compacted(response.body) : response.body)[...]
            let members = MockTestSupport.members(body)
            let array: ArraySlice<UInt8>? = switch service {
            case .plain, .github, .gitlab, .smorest, .drfLink, .drfLinkOffset, .mastodon, .aspnet: body
            case .spring: members["content"]
            case .graph: members["value"]
            case .facets: members["results"]
            // MLflow leaves an empty list out: `{}`.
            case .mlflow: members["experiments"] ?? (members.isEmpty ? Array("[]".utf8)[...] : nil)
            case .wrapped, .offset, .ninja, .litestar, .wagtail, .jupyterhub: members["items"]
            case .piccolo: members["rows"]
            case .fab: members["result"]
            case .graphene, .strawberry: MockTestSupport.members(MockTestSupport.members(members["data"] ?? [])["things"] ?? [])["edges"]
            case .datatables: members["data"]
            case .airflow: members["variables"]
            case .safrs: members["data"]
            case .synapse: members["users"]
            case .reddit: MockTestSupport.members(members["data"] ?? [])["children"]
            case .zendesk: members["activities"]
            case .notion: members["results"]
            case .mediawiki: MockTestSupport.members(members["query"] ?? [])["allpages"]
            case .roundup: MockTestSupport.members(members["data"] ?? [])["collection"]
            // Mailman leaves the list out of a page with none.
            case .mailman: members["entries"] ?? Array("[]".utf8)[...]
            case .kinto: members["data"]
            case .drf, .drfPages: members["results"]
            case .jsonapi, .stripe, .localstripe: members["data"]
            case .slack: members["members"]
            case .eve: members["_items"]
            case .tastypie: members["objects"]
            case .datasette: members["rows"]
            }
            guard let array, array.first == UInt8(ascii: "[") else {
                walk.failure = "no item array in \(MockTestSupport.text(response))"
                break
            }
            // graphene's edges hold the items as their `node`.
            let items = MockTestSupport.elements(array).map { [.graphene, .strawberry].contains(service) ? Array(MockTestSupport.members($0)["node"] ?? []) : Array($0) }
            walk.items += items
            collected += items.count
            page += 1
            next = nil
            var nextLink: String?
            switch service {
            case .plain:
                if items.count == pageSize { next = "\(service.path)?page=\(page)&per_page=\(pageSize)&\(options)" }
            case .wrapped:
                let totalCount = MockTestSupport.int(members["total_count"]) ?? 0
                if items.count == pageSize, collected < totalCount {
                    next = "\(service.path)?page=\(page)&per_page=\(pageSize)&\(options)"
                }
            case .github, .drfLink, .drfLinkOffset, .mastodon:
                nextLink = MockTestSupport.link(response.header("Link"), rel: "next")
            case .mlflow:
                if let token = MockTestSupport.string(members["next_page_token"]) {
                    next = "\(service.path)?max_results=\(pageSize)&\(options)&page_token=\(MockQuery.encode(token))"
                }
            case .kinto:
                nextLink = response.header("Next-Page")
            case .wagtail:
                let totalCount = MockTestSupport.int(MockTestSupport.members(members["meta"] ?? [])["total_count"]) ?? 0
                if collected < totalCount {
                    next = "\(service.path)?limit=\(pageSize)&\(options)&offset=\(collected)"
                }
            case .gitlab:
                if let nextPage = response.header("X-Next-Page"), !nextPage.isEmpty {
                    next = "\(service.path)?page=\(nextPage)&per_page=\(pageSize)&\(options)"
                }
            case .drf, .drfPages:
                nextLink = MockTestSupport.string(members["next"])
            case .jsonapi:
                nextLink = MockTestSupport.string(MockTestSupport.members(members["links"] ?? [])["next"])
            case .slack:
                let metadata = MockTestSupport.members(members["response_metadata"] ?? [])
                if let cursor = MockTestSupport.string(metadata["next_cursor"]), !cursor.isEmpty {
                    next = "\(service.path)?limit=\(pageSize)&\(options)&cursor=\(MockQuery.encode(cursor))"
                }
            case .stripe, .localstripe:
                if MockTestSupport.raw(members["has_more"]) == "true",
                    let last = items.last, let id = MockTestSupport.int(MockTestSupport.members(last[...])["id"]) {
                    next = "\(service.path)?limit=\(pageSize)&\(options)&starting_after=\(id)"
                }
            case .smorest:
                // X-Pagination's "next_page", absent on the last page.
                let header = response.header("X-Pagination") ?? ""
                if let range = header.range(of: #""next_page": "#) {
                    let nextPage = header[range.upperBound...].prefix { $0.isNumber }
                    next = "\(service.path)?page=\(nextPage)&page_size=\(pageSize)&\(options)"
                }
            case .litestar:
                if page <= (MockTestSupport.int(members["total_pages"]) ?? 0) {
                    next = "\(service.path)?page_size=\(pageSize)&current_page=\(page)&\(options)"
                }
            case .ninja:
                let totalCount = MockTestSupport.int(members["count"]) ?? 0
                if collected < totalCount {
                    next = "\(service.path)?offset=\(collected)&limit=\(pageSize)&\(options)"
                }
            case .eve:
                // A relative href with no leading slash ("items?page=2"): the request's directory is /eve/.
                let links = MockTestSupport.members(members["_links"] ?? [])
                if let href = MockTestSupport.string(MockTestSupport.members(links["next"] ?? [])["href"]) {
                    next = "/eve/" + href
                }
            case .tastypie:
                nextLink = MockTestSupport.string(MockTestSupport.members(members["meta"] ?? [])["next"])
            case .datasette:
                nextLink = MockTestSupport.string(members["next_url"])
            case .jupyterhub:
                let pagination = MockTestSupport.members(members["_pagination"] ?? [])
                nextLink = MockTestSupport.string(MockTestSupport.members(pagination["next"] ?? [])["url"])
            case .mailman:
                if collected < MockTestSupport.int(members["total_size"]) ?? 0 {
                    next = "\(service.path)?count=\(pageSize)&page=\(page)&\(options)"
                }
            case .fab:
                // Pages from 0 inside the Rison `q`, on to the count (`page` is the next page's number from 1).
                if !items.isEmpty, collected < MockTestSupport.int(members["count"]) ?? 0 {
                    next = "\(service.path)?q=(page:\(page - 1),page_size:\(pageSize))&\(options)"
                }
            case .safrs:
                // `next`, or the `last` SAFRS names instead of a `next` equal to it, while the count says more follow.
                let links = MockTestSupport.members(members["links"] ?? [])
                let count = MockTestSupport.int(MockTestSupport.members(members["meta"] ?? [])["count"]) ?? 0
                nextLink = MockTestSupport.string(links["next"]) ?? (collected < count ? MockTestSupport.string(links["last"]) : nil)
            case .synapse:
                if let token = MockTestSupport.string(members["next_token"]) {
                    next = "\(service.path)?from=\(token)&limit=\(pageSize)&\(options)"
                }
            case .piccolo:
                // No link and no count: the next page number until a page is empty.
                if !items.isEmpty { next = "\(service.path)?__page_size=\(pageSize)&\(options)&__page=\(page)" }
            case .spring:
                // Numbered from 0: the next page's number is the count of pages read.
                if MockTestSupport.raw(members["last"]) == "false" { next = "\(service.path)?size=\(pageSize)&\(options)&page=\(page - 1)" }
            case .graph:
                nextLink = MockTestSupport.string(members["@odata.nextLink"])
            case .aspnet:
                if response.header("X-Pagination")?.contains(#""HasNext":true"#) == true {
                    next = "\(service.path)?pageSize=\(pageSize)&\(options)&pageNumber=\(page)"
                }
            case .facets:
                nextLink = MockTestSupport.string(members["next"])
            case .graphene, .strawberry:
                let info = MockTestSupport.members(MockTestSupport.members(MockTestSupport.members(members["data"] ?? [])["things"] ?? [])["pageInfo"] ?? [])
                if MockTestSupport.raw(info["hasNextPage"]) == "true", let cursor = MockTestSupport.string(info["endCursor"]) {
                    next = "\(service.path)?variables=\(MockQuery.encode(#"{"first":\#(pageSize),"after":"\#(cursor)"}"#))&\(options)"
                }
            case .datatables:
                if collected < MockTestSupport.int(members["recordsFiltered"]) ?? 0 {
                    next = "\(service.path)?start=\(collected)&length=\(pageSize)&\(options)"
                }
            case .airflow:
                if collected < MockTestSupport.int(members["total_entries"]) ?? 0 {
                    next = "\(service.path)?offset=\(collected)&limit=\(pageSize)&\(options)"
                }
            case .reddit:
                if let after = MockTestSupport.string(MockTestSupport.members(members["data"] ?? [])["after"]) {
                    next = "\(service.path)?limit=\(pageSize)&\(options)&after=\(after)"
                }
            case .zendesk:
                // Zendesk's own clients stop on `has_more`, though the last page still links on.
                if MockTestSupport.raw(MockTestSupport.members(members["meta"] ?? [])["has_more"]) == "true" {
                    nextLink = MockTestSupport.string(MockTestSupport.members(members["links"] ?? [])["next"])
                }
            case .notion:
                if let cursor = MockTestSupport.string(members["next_cursor"]) {
                    next = "\(service.path)?page_size=\(pageSize)&\(options)&start_cursor=\(cursor)"
                }
            case .mediawiki:
                // MediaWiki's own rule: every member of `continue` on the original request.
                if let object = members["continue"] {
                    let sent = MockTestSupport.members(object).compactMap { key, value in
                        MockTestSupport.string(value).map { "\(key)=\(MockQuery.encode($0))" }
                    }
                    next = "\(service.path)?action=query&list=allpages&aplimit=\(pageSize)&\(options)&" + sent.sorted().joined(separator: "&")
                }
            case .roundup:
                let links = MockTestSupport.members(MockTestSupport.members(members["data"] ?? [])["@links"] ?? [])
                if let first = links["next"].flatMap({ MockTestSupport.elements($0).first }) {
                    nextLink = MockTestSupport.string(MockTestSupport.members(first[...])["uri"])
                }
            case .offset:
                let totalCount = MockTestSupport.int(members["total"]) ?? 0
                if collected < totalCount {
                    next = "\(service.path)?offset=\(collected)&limit=\(pageSize)&\(options)"
                }
            }
            if let nextLink {
                guard let nextTarget = MockTestSupport.target(fromLink: nextLink) else {
                    walk.failure = "foreign next link \(nextLink)"
                    break
                }
                next = nextTarget
            }
        }
        return walk
    }
}

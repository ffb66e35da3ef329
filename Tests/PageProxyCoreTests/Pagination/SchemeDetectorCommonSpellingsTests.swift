import Testing

@testable import PageProxyCore

/// `scheme: "auto"` on first pages that say "more" in spellings beyond the first few (review17 B1, B2; attack14 M8,
/// L1, L2): each is walked, or refused with `pagination_not_detected` naming what it saw; none is answered as the
/// whole list. Shapes as the upstreams document them.
@Suite struct SchemeDetectorCommonSpellingsTests {
    private static let url = PageURL(string: "http://api.test/items")!

    private func detect(_ body: String, headers: [(String, String)] = [], url: PageURL = Self.url) throws -> DetectedPagination {
        try SchemeDetector.detect(.json(body, headers: headers), url: url)
    }

    private func refusal(_ body: String) -> String? {
        do {
            _ = try detect(body)
            return nil
        } catch {
            guard case .notDetected(_, let reason) = error as? PaginationError else { return "\(error)" }
            return reason
        }
    }

    @Test("next links and cursors under the big APIs' own names are followed", arguments: [
        (#"{"@odata.context":"x","value":[{"id":1}],"@odata.nextLink":"https://graph.test/v1.0/users?$skiptoken=X"}"#, "next-url", "@odata.nextLink"),
        (#"{"odata.metadata":"x","value":[{"id":1}],"odata.nextLink":"https://api.test/items?$skiptoken=X"}"#, "next-url", "odata.nextLink"),
        (#"{"value":[{"id":1}],"nextLink":"https://management.test/subs?api-version=1&$skiptoken=X"}"#, "next-url", "nextLink"),
        (#"{"totalSize":9,"done":false,"nextRecordsUrl":"/services/data/v58.0/query/01g-2000","records":[{"Id":"a"}]}"#, "next-url", "nextRecordsUrl"),
        (#"{"results":[{"id":1}],"start":0,"limit":1,"size":1,"_links":{"next":"/rest/api/content?start=1","base":"https://c.test"}}"#, "next-url", "_links.next"),
        (#"{"Items":[{"id":1}],"NextToken":"tok1"}"#, "cursor", "NextToken"),
        (#"{"items":[{"id":1}],"nextToken":"tok1"}"#, "cursor", "nextToken"),
    ])
    func nextUnderOwnNames(body: String, scheme: String, evidence: String) throws {
        let detected = try detect(body)
        #expect(detected.schemeName == scheme, "\(body)")
        #expect(detected.evidence == "body \"\(evidence)\"", "\(body)")
        #expect(detected.next != nil)
    }

    @Test("Spring Data's Page (both forms) and Algolia: numbered pages from the body's 0, the total from its own name")
    func zeroBasedPages() throws {
        let spring = try detect(
            #"{"content":[{"id":1},{"id":2}],"pageable":{"offset":0},"last":false,"totalPages":5,"totalElements":10,"size":2,"number":0,"first":true}"#)
        #expect(spring.schemeName == "page-number")
        #expect(spring.total == 10)
        guard case .pageNumber(let options)? = spring.scheme else { Issue.record("\(spring)"); return }
        #expect(options.firstPage == 0 && options.pageParameter == "page")
        let dto = try detect(#"{"content":[{"id":1},{"id":2}],"page":{"size":2,"number":0,"totalElements":10,"totalPages":5}}"#)
        #expect(dto.schemeName == "page-number")
        #expect(dto.total == 10)
        let algolia = try detect(#"{"hits":[{"id":1}],"nbHits":3,"page":0,"nbPages":3,"hitsPerPage":1}"#)
        guard case .pageNumber(let algoliaOptions)? = algolia.scheme else { Issue.record("\(algolia)"); return }
        #expect(algoliaOptions.firstPage == 0)
        #expect(algolia.total == 3)
        // review17 B2: a body that says "page": 0 with a page count numbers from 0; one that says 1 from 1.
        guard case .pageNumber(let zero)? = try detect(#"{"items":[{"id":1}],"page":0,"pages":3}"#).scheme,
            case .pageNumber(let one)? = try detect(#"{"items":[{"id":1}],"page":1,"pages":3}"#).scheme
        else { Issue.record("not page-number"); return }
        #expect(zero.firstPage == 0 && one.firstPage == 1)
    }

    @Test("Meilisearch's estimatedTotalHits and the Marvel API's data.total are totals; a page's own count does not hide a larger total")
    func totalsUnderOwnNames() throws {
        let meili = try detect(#"{"hits":[{"id":1}],"offset":0,"limit":1,"estimatedTotalHits":3}"#)
        #expect(meili.schemeName == "offset")
        #expect(meili.total == 3)
        let marvel = refusal(#"{"code":200,"data":{"offset":0,"limit":1,"total":1562,"count":1,"results":[{"id":1}]}}"#)
        #expect(marvel?.contains("1562") == true, "\(marvel ?? "nil")")
        // Pokémon TCG API: "count" is the page's, "totalCount" the list's.
        let pokemon = refusal(#"{"data":[{"id":1},{"id":2}],"page":1,"pageSize":2,"count":2,"totalCount":18000}"#)
        #expect(pokemon?.contains("18000") == true, "\(pokemon ?? "nil")")
    }

    @Test("a flag or page count that says more, with no way on, is refused naming it (before: the first page, with a 200)", arguments: [
        (#"{"values":[{"id":1}],"isLastPage":false,"start":0}"#, "isLastPage"),
        (#"{"elements":[{"id":1}],"last":false}"#, "last"),
        (#"{"records":[{"Id":"a"}],"done":false}"#, "done"),
        (#"{"data":[{"id":1}],"hasMore":true}"#, "hasMore"),
        (#"{"items":[{"id":1}],"hasNext":true}"#, "hasNext"),
        (#"{"hits":[{"id":1}],"nbPages":4}"#, "nbPages"),
        (#"{"data":[{"id":1}],"meta":{"hasMore":true}}"#, "meta.hasMore"),
        (#"{"items":[{"id":1}],"pagination":{"isLastPage":false}}"#, "pagination.isLastPage"),
    ])
    func moreSpelledIsRefused(body: String, name: String) {
        let reason = refusal(body)
        #expect(reason?.contains("\"\(name)\"") == true, "\(body): \(reason ?? "a 200")")
    }

    @Test("the same flags saying this is the last page leave one page, as before")
    func lastPageFlags() throws {
        for body in [#"{"values":[{"id":1}],"isLastPage":true}"#, #"{"data":[{"id":1}],"hasMore":false}"#, #"{"records":[{"Id":"a"}],"done":true,"totalSize":1}"#] {
            #expect(try detect(body).scheme == nil, "\(body)")
        }
    }
}

/// attack14 M7: a listed items key holding scalars is the items, beside any other array of objects.
@Suite struct SchemeDetectorScalarItemsTests {
    @Test(arguments: [
        #"{"results":["alpha","beta"],"facets":[{"name":"color","count":3}],"next":null}"#,
        #"{"data":[10,11,12],"links":[{"rel":"self","href":"/x"}]}"#,
    ])
    func scalarsAtAListedKeyAreTheItems(body: String) throws {
        let detected = try SchemeDetector.detect(.json(body), url: PageURL(string: "http://api.test/items")!)
        #expect(["results", "data"].contains(detected.itemsPath.description), "\(detected.itemsPath)")
    }

    @Test("retest14 M7: ids under an unlisted key beside an array of link objects are refused, naming both (before: the links, 200)")
    func idsUnderAnUnlistedKeyBesideObjectsAreRefused() throws {
        let body = #"{"ids":[10,11,12],"links":[{"rel":"self","href":"/x"},{"rel":"next","href":"/x?page=2"}]}"#
        do {
            let detected = try SchemeDetector.detect(.json(body), url: PageURL(string: "http://api.test/items")!)
            Issue.record("expected notDetected, got items at \(detected.itemsPath)")
        } catch {
            guard case .notDetected(_, let reason) = error else { Issue.record("got \(error)"); return }
            #expect(reason.contains("\"links\"") && reason.contains("\"ids\"") && reason.contains("\"items\""), "\(reason)")
        }
        // review21 L5: Jira's search with a warning is refused too; the message names the route's "items" set to the
        // objects' key as the way out.
        let jira = #"{"startAt":0,"total":2,"issues":[{"key":"A-1"},{"key":"A-2"}],"warningMessages":["The value 'x' does not exist"]}"#
        do {
            let detected = try SchemeDetector.detect(.json(jira), url: PageURL(string: "http://jira.test/rest/api/2/search")!)
            Issue.record("expected notDetected, got items at \(detected.itemsPath)")
        } catch {
            guard case .notDetected(_, let reason) = error else { Issue.record("got \(error)"); return }
            #expect(reason.contains(#"("items": "issues" if the objects are)"#) && reason.contains("\"warningMessages\""), "\(reason)")
        }
        // An empty array beside the objects hides nothing: the objects are the items, as before.
        let empty = try SchemeDetector.detect(.json(#"{"ids":[],"artifacts":[{"id":1}]}"#), url: PageURL(string: "http://api.test/items")!)
        #expect(empty.itemsPath.description == "artifacts")
    }
}

/// attack14 L1 and L2: a `Link` of `first` alone gives way to the body's next link; GitHub's shape with no items is
/// a list of no items.
@Suite struct SchemeDetectorLinkAndEmptyTests {
    private static let url = PageURL(string: "http://api.test/items")!

    @Test("a Link of first (or prev) alone: the body's next link is walked (before: link-header, the first page alone)")
    func firstOnlyLinkGivesWayToTheBody() throws {
        let body = #"{"results":[{"id":1}],"next":"http://api.test/items?page=2"}"#
        for link in [#"<http://api.test/items?page=1>; rel="first""#, #"<http://api.test/items?page=1>; rel="prev""#] {
            let detected = try SchemeDetector.detect(.json(body, headers: [("Link", link)]), url: Self.url)
            #expect(detected.schemeName == "next-url", "\(link)")
            #expect(detected.next == "http://api.test/items?page=2")
        }
        // With nothing in the body, the Link is walked as before.
        let bare = try SchemeDetector.detect(.json(#"[{"id":1}]"#, headers: [("Link", #"<http://api.test/items?page=1>; rel="first""#)]), url: Self.url)
        #expect(bare.schemeName == "link-header")
    }

    @Test("GitHub's {\"total_count\":0,\"artifacts\":[]} is a list of no items (before: 502), an empty array beside an object is not told")
    func onlyEmptyArrayIsNoItems() throws {
        for key in ["artifacts", "workflow_runs"] {
            let detected = try SchemeDetector.detect(.json(#"{"total_count":0,"\#(key)":[]}"#), url: Self.url)
            #expect(detected.itemsPath.description == key)
            #expect(detected.itemCount == 0 && detected.scheme == nil)
        }
        #expect(throws: PaginationError.self) {
            try SchemeDetector.detect(.json(#"{"total_count":0,"artifacts":[],"meta":{"a":1}}"#), url: Self.url)
        }
        #expect(throws: PaginationError.self) {
            try SchemeDetector.detect(.json(#"{"total_count":0,"artifacts":[],"runs":[]}"#), url: Self.url)
        }
    }
}

/// attack14 H3: with no page parameter in the URL, the page's own name for its current page implies the parameter.
@Suite struct SchemeDetectorPageParameterTests {
    private static let url = PageURL(string: "http://api.test/items")!

    private func pageParameter(_ body: String, headers: [(String, String)] = [], url: PageURL = Self.url) throws -> String? {
        guard case .pageNumber(let options)? = try SchemeDetector.detect(.json(body, headers: headers), url: url).scheme else { return nil }
        return options.pageParameter
    }

    @Test func impliedByTheHeaderOrTheBody() throws {
        let aspNet = #"{"TotalCount":9,"PageSize":3,"CurrentPage":1,"TotalPages":3,"HasNext":true}"#
        #expect(try pageParameter(#"[{"id":1}]"#, headers: [("X-Pagination", aspNet)]) == "pageNumber")
        #expect(try pageParameter(#"[{"id":1}]"#, headers: [("X-Pagination", #"{"total":9,"total_pages":3,"page":1}"#)]) == "page")
        // The URL's own parameter wins.
        #expect(try pageParameter(#"[{"id":1}]"#, headers: [("X-Pagination", aspNet)], url: PageURL(string: "http://api.test/items?page=1")!) == "page")
        // Litestar's ClassicPagination with its handler's defaults: nothing in the URL.
        #expect(try pageParameter(#"{"items":[{"id":1}],"page_size":1,"current_page":1,"total_pages":3}"#) == "current_page")
        #expect(try pageParameter(#"{"items":[{"id":1}],"page":1,"pages":3}"#) == "page")
    }
}

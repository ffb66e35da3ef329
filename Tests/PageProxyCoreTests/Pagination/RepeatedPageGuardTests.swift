import Testing

@testable import PageProxyCore

/// Pages whose items repeat the page before (loose12): constant data with no id is walked whole, an upstream that
/// sends the same page and the same way on again ends the walk at once, and one that only renumbers an ignored
/// parameter ends it after `maxRepeatsInRow` pages, not at `maxPages`.
@Suite struct RepeatedPageGuardTests {
    private static let pages = 30
    private static let constantItems = Array(repeating: #"{"v":0}"#, count: 10).joined(separator: ",")

    private static func page(_ url: PageURL) -> Int { Int(url.queryValue("page") ?? "1") ?? 1 }

    private static var nextURL: PaginationScheme {
        var options = PaginationScheme.NextURLInBody()
        options.nextPath = JSONPath("next") ?? .root
        return .nextURLInBody(options)
    }

    @Test("a series of constant values with no id, 30 pages of byte-identical items, is walked whole on every followed scheme",
          arguments: ["next-url", "link", "next-page-header", "cursor"])
    func constantDataIsWalkedWhole(scheme: String) async throws {
        let transport = FakeTransport { url in
            let page = Self.page(url)
            let more = page < Self.pages
            switch scheme {
            case "next-url":
                return .json(#"{"next":\#(more ? "\"http://h/a?page=\(page + 1)\"" : "null"),"results":[\#(Self.constantItems)]}"#)
            case "link":
                return .json("[\(Self.constantItems)]", headers: more ? [("Link", "<http://h/a?page=\(page + 1)>; rel=\"next\"")] : [])
            case "next-page-header":
                return .json("[\(Self.constantItems)]", headers: more ? [("X-Next-Page", "\(page + 1)")] : [])
            default:
                let cursor = url.queryValue("cursor").flatMap { Int($0) } ?? 1
                return .json(#"{"next_cursor":\#(cursor < Self.pages ? "\"\(cursor + 1)\"" : "null"),"results":[\#(Self.constantItems)]}"#)
            }
        }
        let chosen: PaginationScheme
        switch scheme {
        case "next-url": chosen = Self.nextURL
        case "link": chosen = .linkHeader(.init())
        case "next-page-header": chosen = .nextPageHeader(.init(totalPagesHeader: nil))
        default:
            var cursor = PaginationScheme.CursorInBody()
            cursor.cursorPath = JSONPath("next_cursor") ?? .root
            chosen = .cursorInBody(cursor)
        }
        let walked = try await PageWalker.make(chosen, transport: transport, base: "http://h/a") {
            $0.itemsPath = scheme == "link" || scheme == "next-page-header" ? .root : JSONPath("results") ?? .root
        }.pages()
        #expect(walked.count == Self.pages)
        #expect(walked.flatMap(\.itemBytes).count == Self.pages * 10)
    }

    @Test("a page and its way on answered again under a new URL (the same next link, cursor or Next-Page) ends the walk at once",
          arguments: ["next-url", "next-page-header"])
    func sameWayOnEndsTheWalkAtOnce(scheme: String) async throws {
        // Page 1 links to page 2; the upstream ignores `from` and answers page 2, its link included, for every later URL
        // (as Eve answered page 1 again for its relative href sent back as a cursor, real10).
        let transport = FakeTransport { url in
            let isFirst = url.queryValue("from") == nil
            let items = isFirst ? #"{"id":1},{"id":2}"# : #"{"id":3},{"id":4}"#
            let link = isFirst ? "?from=x" : "?from=xx"
            return scheme == "next-url"
                ? .json(#"{"next":"\#(link)","results":[\#(items)]}"#) : .json("[\(items)]", headers: [("Next-Page", link)])
        }
        let chosen: PaginationScheme = scheme == "next-url" ? Self.nextURL : .nextPageHeader(.init(nextPageHeader: "Next-Page", totalPagesHeader: nil))
        do {
            _ = try await PageWalker.make(chosen, transport: transport, base: "http://h/a") {
                $0.itemsPath = scheme == "next-url" ? JSONPath("results") ?? .root : .root
            }.pages()
            Issue.record("the walk did not fail")
        } catch {
            guard case .repeatedPage(let page, _) = error else { Issue.record("got \(error)"); return }
            #expect(page == 3)
        }
        // Pages 1, 2 and 2 again with its link: no fourth request.
        #expect(transport.requestedURLs.count == 3)
    }

    @Test("an upstream that answers one page under links that only renumber an ignored parameter ends after maxRepeatsInRow, not maxPages")
    func renumberedLinksEndAfterTheBound() async throws {
        let transport = FakeTransport { url in
            let again = Int(url.queryValue("again") ?? "0") ?? 0
            return .json(#"{"next":"http://h/a?again=\#(again + 1)","results":[{"id":1}]}"#)
        }
        do {
            _ = try await PageWalker.make(Self.nextURL, transport: transport, base: "http://h/a") {
                $0.itemsPath = JSONPath("results") ?? .root
                $0.maxPages = 1000
            }.pages()
            Issue.record("the walk did not fail")
        } catch {
            guard case .repeatedPage(let page, _) = error else { Issue.record("got \(error)"); return }
            #expect(page == RepeatedPageGuard.maxRepeatsInRow + 2)
            #expect(error.description.contains("\(RepeatedPageGuard.maxRepeatsInRow) such pages in a row"))
        }
        #expect(transport.requestedURLs.count == RepeatedPageGuard.maxRepeatsInRow + 2)
    }

    @Test("the count of repeats starts again when the items move on: runs of constant values shorter than the bound pass")
    func repeatsCountOnlyInARow() async throws {
        // Pages of constant values, the value changing every maxRepeatsInRow pages: never more repeats in a row.
        let run = RepeatedPageGuard.maxRepeatsInRow
        let total = run * 3
        let transport = FakeTransport { url in
            let page = Self.page(url)
            let items = Array(repeating: "{\"v\":\((page - 1) / run)}", count: 5).joined(separator: ",")
            return .json(#"{"next":\#(page < total ? "\"http://h/a?page=\(page + 1)\"" : "null"),"results":[\#(items)]}"#)
        }
        let walked = try await PageWalker.make(Self.nextURL, transport: transport, base: "http://h/a") { $0.itemsPath = JSONPath("results") ?? .root }
            .pages()
        #expect(walked.count == total)
    }
}

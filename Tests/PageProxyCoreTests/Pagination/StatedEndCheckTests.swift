import Testing

@testable import PageProxyCore

/// review17 B5 / B10: the end a numbered walk counted from, compared with every later page's; and totals lower than
/// the items (estimated counts, a `0`), which end nothing.
@Suite struct StatedEndCheckTests {
    /// Offset pages of 5 from 0 to `total`; the page at `offset` states `count(offset)` items in all.
    private static func offsets(total: Int, count: @escaping @Sendable (Int) -> Int) -> FakeTransport {
        FakeTransport { url in
            let offset = url.integerQueryValue("offset") ?? 0
            let ids = offset < total ? Array(offset..<min(total, offset + 5)) : []
            return .json("{\"count\":\(count(offset)),\"results\":[" + ids.map { "{\"id\":\($0)}" }.joined(separator: ",") + "]}")
        }
    }

    private static let offset = PaginationScheme.offset(.init(limit: 5, totalItemsPath: JSONPath(components: [.key("count")])))
    private static func results(_ options: inout PageWalker.Options) { options.itemsPath = JSONPath(components: [.key("results")]) }

    /// Offset pages of 5 over ids from 0, with `inserted(offset)` new ids (from 1000) at the list's head when the page
    /// at `offset` is asked and `appended(offset)` more at its tail: every page states the count of that moment.
    private static func changing(total: Int, inserted: @escaping @Sendable (Int) -> Int, appended: @escaping @Sendable (Int) -> Int = { _ in 0 }) -> FakeTransport {
        FakeTransport { url in
            let offset = url.integerQueryValue("offset") ?? 0
            let (head, tail) = (inserted(offset), appended(offset))
            let list = (0..<head).map { 1000 + head - 1 - $0 } + Array(0..<total + tail)
            let ids = offset < list.count ? Array(list[offset..<min(list.count, offset + 5)]) : []
            return .json("{\"count\":\(list.count),\"results\":[" + ids.map { "{\"id\":\($0)}" }.joined(separator: ",") + "]}")
        }
    }

    /// review17 B5's target: a head insert shifts the pages after it, and the page before's last items come again.
    @Test("items inserted at the head mid-walk (a later page starts with the page before's last items): listChanged", arguments: [1, 3, 5, 7])
    func aHeadInsertFailsTheWalk(inserted: Int) async throws {
        let transport = Self.changing(total: 25) { $0 >= 10 ? inserted : 0 }
        let walker = PageWalker.make(Self.offset, transport: transport, configure: Self.results)
        do {
            _ = try await walker.pages()
            Issue.record("the walk answered")
        } catch {
            guard case .listChanged(let page, let stated, let numbered) = error else {
                Issue.record("\(error)")
                return
            }
            #expect((page, stated, numbered) == (3, 25 + inserted, 25))
            #expect(error.code == "upstream_list_changed")
        }
        #expect(walker.foundListChanged)
    }

    /// review21 F3 / retest15 N2: an oldest-first list appended to during the walk moves no page walked; before, the
    /// larger count was a 502 on every walk a write landed in.
    @Test("items appended at the tail mid-walk: every item once, the growth recorded, no listChanged", arguments: [1, 3, 9])
    func aTailAppendWalksOn(appended: Int) async throws {
        let transport = Self.changing(total: 25, inserted: { _ in 0 }) { $0 >= 10 ? appended : 0 }
        let walker = PageWalker.make(Self.offset, transport: transport, configure: Self.results)
        let pages = try await walker.pages()
        let ids = pages.flatMap(\.itemBytes).map { String(decoding: $0, as: UTF8.self) }
        // The pages numbered from 25, and what the last of them holds now (items 20-24, then the check page past it).
        #expect(ids.prefix(25) == ArraySlice((0..<25).map { "{\"id\":\($0)}" }))
        #expect(Set(ids).count == ids.count, "\(ids)")
        #expect(walker.statedEndGrowth?.from == .items(25))
        #expect(walker.statedEndGrowth?.to == .items(25 + appended))
    }

    @Test("a count that shrank (rows deleted: the items after them moved back, unseen) still fails the walk")
    func aSmallerCountFailsTheWalk() async throws {
        let transport = Self.offsets(total: 25) { $0 >= 10 ? 24 : 25 }
        await #expect(throws: PaginationError.self) { try await PageWalker.items(Self.offset, transport: transport, configure: Self.results) }
    }

    @Test("a growth longer than two pages cannot be seen between them: listChanged, as before")
    func aGrowthPastTwoPagesFails() async throws {
        let transport = Self.changing(total: 25, inserted: { _ in 0 }) { $0 >= 10 ? 10 : 0 }
        await #expect(throws: PaginationError.self) { try await PageWalker.items(Self.offset, transport: transport, configure: Self.results) }
    }

    /// Meilisearch's `estimatedTotalHits` moves with the offset while no item does (meilisearch#3657).
    @Test("an estimated total (by its name, or totalIsEstimate) that moves with the page is no change: every item once", arguments: [-3, 2, 40])
    func anEstimateThatMovesIsNoChange(drift: Int) async throws {
        for (path, flagged) in [("estimatedTotalHits", false), ("count", true)] {
            let transport = FakeTransport { url in
                let offset = url.integerQueryValue("offset") ?? 0
                let ids = offset < 25 ? Array(offset..<min(25, offset + 5)) : []
                return .json("{\"\(path)\":\(max(0, 25 + drift * offset / 5)),\"results\":[" + ids.map { "{\"id\":\($0)}" }.joined(separator: ",") + "]}")
            }
            var options = PaginationScheme.Offset(limit: 5, totalItemsPath: JSONPath(components: [.key(path)]))
            options.totalIsEstimate = flagged
            let items = try await PageWalker.items(.offset(options), transport: transport, configure: Self.results)
            #expect(items.map { String(decoding: $0, as: UTF8.self) } == (0..<25).map { "{\"id\":\($0)}" }, "\(path)")
        }
    }

    /// retest16 N1: an estimate is never compared, and a head insert answered a 200 with an item twice.
    @Test("an estimated total: items inserted at the head mid-walk (a page starts with the page before's last) fail the walk", arguments: [1])
    func aHeadInsertUnderAnEstimateFails(inserted: Int) async throws {
        for (path, flagged) in [("estimatedTotalHits", false), ("count", true)] {
            let transport = FakeTransport { url in
                let offset = url.integerQueryValue("offset") ?? 0
                let head = offset >= 10 ? inserted : 0
                let list = (0..<head).map { 1000 + $0 } + Array(0..<25)
                let ids = offset < list.count ? Array(list[offset..<min(list.count, offset + 5)]) : []
                return .json("{\"\(path)\":25,\"results\":[" + ids.map { "{\"id\":\($0)}" }.joined(separator: ",") + "]}")
            }
            var options = PaginationScheme.Offset(limit: 5, totalItemsPath: JSONPath(components: [.key(path)]))
            options.totalIsEstimate = flagged
            do {
                let items = try await PageWalker.items(.offset(options), transport: transport, configure: Self.results)
                Issue.record("\(path): answered \(items.count) items")
            } catch {
                #expect(error.isListChange, "\(path): \(error)")
                #expect(error.code == "upstream_list_changed")
            }
        }
    }

    @Test("a `last` link that moves back between numbered pages fails a link-header walk")
    func aMovedLastLinkFailsTheWalk() async throws {
        let transport = FakeTransport { url in
            let page = url.integerQueryValue("page") ?? 1
            let last = page >= 3 ? 4 : 5
            var links = ["<http://api.test/items?page=\(last)>; rel=\"last\""]
            if page < last { links.append("<http://api.test/items?page=\(page + 1)>; rel=\"next\"") }
            return .json("[{\"p\":\(page)}]", headers: [("Link", links.joined(separator: ", "))])
        }
        await #expect(throws: PaginationError.self) { try await PageWalker.items(.linkHeader(.init()), transport: transport) }
    }

    @Test("an unchanged total: every item once, no page past a short last one")
    func anUnchangedTotalWalksAsBefore() async throws {
        let transport = Self.offsets(total: 23) { _ in 23 }
        let items = try await PageWalker.items(Self.offset, transport: transport, configure: Self.results)
        #expect(items.count == 23)
        #expect(transport.requestedURLs.count == 5)
    }

    @Test("a total lower than the items (an estimate, a 0): the short-page rule ends the walk, every item once", arguments: [0, 3, 16, 20])
    func aTotalBelowTheItemsEndsNothing(count: Int) async throws {
        let transport = Self.offsets(total: 23) { _ in count }
        let items = try await PageWalker.items(Self.offset, transport: transport, configure: Self.results)
        #expect(items.map { String(decoding: $0, as: UTF8.self) } == (0..<23).map { "{\"id\":\($0)}" })
    }

    @Test("the full last page a total numbered is followed by one more; a 416 there (PostgREST) ends the walk quietly")
    func aFullLastPageIsFollowedOnce() async throws {
        let transport = FakeTransport { url in
            let offset = url.integerQueryValue("offset") ?? 0
            guard offset < 20 else { return UpstreamResponse(status: HTTPStatus(code: 416), headers: HTTPHeaders(), body: []) }
            let ids = Array(offset..<offset + 5)
            return .json("{\"count\":20,\"results\":[" + ids.map { "{\"id\":\($0)}" }.joined(separator: ",") + "]}")
        }
        let items = try await PageWalker.items(Self.offset, transport: transport, configure: Self.results)
        #expect(items.count == 20)
        #expect(transport.requestedURLs.count == 5)
    }

    @Test("page-number: a total of 0 beside items, and one 80 % of the truth, end nothing")
    func aPageNumberTotalBelowTheItemsEndsNothing() async throws {
        for count in [0, 20] {
            let transport = FakeTransport { url in
                let page = url.integerQueryValue("page") ?? 1
                return .json("{\"total\":\(count),\"items\":\(FakePages.body(page: page, pageSize: 5, total: 25))}")
            }
            let scheme = PaginationScheme.pageNumber(.init(pageSize: 5, totalItemsPath: JSONPath(components: [.key("total")])))
            let items = try await PageWalker.items(scheme, transport: transport) { $0.itemsPath = JSONPath(components: [.key("items")]) }
            #expect(items == FakePages.expected(total: 25), "count \(count)")
        }
    }
}

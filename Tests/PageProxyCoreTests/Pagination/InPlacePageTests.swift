import PageProxyMock
import Testing

@testable import PageProxyCore

/// Pages at hand (fresh cache hits) are read in place through `Options.cachedPage`: no fetch and no task for them,
/// the others fetched in their place, and every page handed out in upstream order.
@Suite struct InPlacePageTests {
    private static let pageSize = 10

    private static func body(of url: PageURL, total: Int) -> UpstreamResponse {
        .json(FakePages.body(page: Int(url.queryValue("page") ?? "1") ?? 1, pageSize: pageSize, total: total))
    }

    private static var scheme: PaginationScheme {
        var scheme = PaginationScheme.PageNumber()
        scheme.pageSize = pageSize
        return .pageNumber(scheme)
    }

    @Test("a walk whose pages are all at hand makes no fetch, reads each page once, in order", arguments: [1, 4])
    func aWalkOfPagesAtHandMakesNoFetch(concurrency: Int) async throws {
        let transport = FakeTransport { url in Self.body(of: url, total: 95) }
        let reads = Locked<[Int]>([])
        let items = try await PageWalker.items(Self.scheme, transport: transport) { options in
            options.concurrency = concurrency
            options.cachedPage = { url, number in
                reads.withLock { $0.append(number) }
                return Self.body(of: url, total: 95)
            }
        }
        #expect(items == FakePages.expected(total: 95))
        #expect(transport.requestedURLs.isEmpty)
        #expect(reads.withLock { $0 } == Array(1...10))
    }

    @Test("a walk of pages at hand makes no task group; one that fetches does, and hands out every page in order")
    func aWalkOfPagesAtHandMakesNoTaskGroup() async throws {
        let transport = FakeTransport { url in Self.body(of: url, total: 45) }
        let allAtHand = PageWalker.make(Self.scheme, transport: transport) { options in
            options.cachedPage = { url, _ in Self.body(of: url, total: 45) }
        }
        #expect(try await allAtHand.pages().map(\.number) == [1, 2, 3, 4, 5])
        #expect(!allAtHand.hasStartedGroup)
        // At hand, then fetched, then at hand again: the walk moves into a group at its first fetch.
        let mixed = PageWalker.make(Self.scheme, transport: transport) { options in
            options.concurrency = 2
            options.cachedPage = { url, number in number == 3 ? nil : Self.body(of: url, total: 45) }
        }
        #expect(try await mixed.pages().map(\.number) == [1, 2, 3, 4, 5])
        #expect(mixed.hasStartedGroup)
        #expect(transport.requestedURLs.map { PageURL(string: $0)?.queryValue("page") } == ["3"])
    }

    @Test("pages not at hand are fetched in their place; the walk's order is the upstream's")
    func pagesNotAtHandAreFetchedInTheirPlace() async throws {
        let transport = FakeTransport { url in Self.body(of: url, total: 95) }
        let items = try await PageWalker.items(Self.scheme, transport: transport) { options in
            options.concurrency = 3
            options.cachedPage = { url, number in number.isMultiple(of: 2) ? Self.body(of: url, total: 95) : nil }
        }
        #expect(items == FakePages.expected(total: 95))
        // Up to three pages are asked side by side: page 1 first, the rest in either order.
        let asked = transport.requestedURLs.map { PageURL(string: $0)?.queryValue("page") ?? "" }
        #expect(asked.first == "1")
        #expect(asked.sorted() == ["1", "3", "5", "7", "9"])
    }

    @Test("the next page is at hand once the page before it was taken, and not after the walk ends")
    func theNextPageIsAtHandAfterThePageBefore() async throws {
        let transport = FakeTransport { url in Self.body(of: url, total: 25) }
        let walker = PageWalker.make(Self.scheme, transport: transport) { options in
            options.cachedPage = { url, number in number == 3 ? nil : Self.body(of: url, total: 25) }
        }
        var atHand: [Bool] = []
        let numbers = try await walker.pages { _ in atHand.append(walker.isNextPageAtHand) }.map(\.number)
        #expect(numbers == [1, 2, 3])
        #expect(atHand == [true, false, false])
        #expect(!walker.isNextPageAtHand)
    }

    @Test("the walk says it will wait before each fetch it waits for, never for a page at hand")
    func beforeWaitingIsCalledOnlyForFetches() async throws {
        let transport = FakeTransport { url in Self.body(of: url, total: 45) }
        let waits = Locked(0)
        let allAtHand = try await PageWalker.items(Self.scheme, transport: transport) { options in
            options.cachedPage = { url, _ in Self.body(of: url, total: 45) }
            options.beforeWaiting = { waits.withLock { $0 += 1 } }
        }
        #expect(allAtHand == FakePages.expected(total: 45))
        #expect(waits.withLock { $0 } == 0)
        let mixed = try await PageWalker.items(Self.scheme, transport: transport) { options in
            options.concurrency = 1
            options.cachedPage = { url, number in number.isMultiple(of: 2) ? Self.body(of: url, total: 45) : nil }
            options.beforeWaiting = { waits.withLock { $0 += 1 } }
        }
        #expect(mixed == FakePages.expected(total: 45))
        // Pages 1, 3 and 5 were fetched and waited for.
        #expect(waits.withLock { $0 } == 3)
    }

    @Test("a walk has handed out all once the list is complete and its last page is taken, not before")
    func hasHandedOutAllAfterTheLastPage() async throws {
        let transport = FakeTransport { url in Self.body(of: url, total: 25) }
        let walker = PageWalker.make(Self.scheme, transport: transport) { options in
            options.cachedPage = { url, _ in Self.body(of: url, total: 25) }
        }
        var handedOutAll: [Bool] = []
        _ = try await walker.pages { _ in handedOutAll.append(walker.hasHandedOutAll) }
        #expect(handedOutAll == [false, false, true])
    }

    @Test("a first page URL and scan paths given by the caller are the ones the walk uses")
    func givenFirstPageAndScanPathsAreUsed() async throws {
        let transport = FakeTransport { url in Self.body(of: url, total: 5) }
        let walker = PageWalker.make(Self.scheme, transport: transport) { options in
            options.firstPage = PageURL(string: "http://api.test/items?page=1&given=1")
            options.scanPaths = ScanPaths(itemsPath: .root, valuePaths: [])
        }
        let pages = try await walker.pages()
        #expect(pages.map(\.itemCount) == [5])
        #expect(transport.requestedURLs == ["http://api.test/items?page=1&given=1"])
    }

    @Test("a page at hand that is not JSON fails the walk as a fetched one would")
    func aPageAtHandThatIsNotJSONFailsTheWalk() async throws {
        let transport = FakeTransport { url in Self.body(of: url, total: 25) }
        let walker = PageWalker.make(Self.scheme, transport: transport) { options in
            options.cachedPage = { url, number in number == 2 ? .json("[1,") : Self.body(of: url, total: 25) }
        }
        var numbers: [Int] = []
        do {
            _ = try await walker.pages { numbers.append($0.number) }
            Issue.record("expected page 2 to fail")
        } catch {
            guard case .invalidJSON(page: 2, _, _) = error else { Issue.record("got \(error)"); return }
        }
        #expect(numbers == [1])
    }
}

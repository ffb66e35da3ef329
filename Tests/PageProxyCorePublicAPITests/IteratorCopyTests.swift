import PageProxyCore
import Testing

/// Iterators have value semantics: a copy goes on from where it was copied, never taking another copy's pages.
@Suite struct IteratorCopyTests {
    @Test func aCopiedPageIteratorWalksOnItsOwn() async throws {
        let client = PageProxyClient(configuration: .init(transport: IssuePages(total: 40).transport))
        var original = client.pages(of: RepositoryIssues()).makeAsyncIterator()
        #expect(try await original.next()?.number == 1)
        var copy = original
        #expect(try await original.next()?.number == 2)
        #expect(try await copy.next()?.number == 2)
        #expect(try await copy.next()?.number == 3)
        #expect(try await original.next()?.number == 3)
        #expect(try await original.next()?.number == 4)
        #expect(try await original.next() == nil)
        #expect(try await copy.next()?.number == 4)
        #expect(try await copy.next() == nil)
    }

    @Test func aCopiedItemIteratorYieldsTheSameItems() async throws {
        let client = PageProxyClient(configuration: .init(transport: IssuePages(total: 25).transport))
        var original = client.items(of: RepositoryIssues()).makeAsyncIterator()
        for _ in 0..<12 { _ = try await original.next() }
        var copy = original
        var fromOriginal: [Int] = []
        var fromCopy: [Int] = []
        while let item = try await original.next() { fromOriginal.append(item.id) }
        while let item = try await copy.next() { fromCopy.append(item.id) }
        #expect(fromOriginal == Array(12..<25))
        #expect(fromCopy == Array(12..<25))
    }
}

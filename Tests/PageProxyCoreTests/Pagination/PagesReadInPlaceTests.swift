import Testing

@testable import PageProxyCore

/// `PagesReadInPlace`: pages by index until taken, whichever of its two places holds them.
@Suite struct PagesReadInPlaceTests {
    private func page(_ number: Int) -> PagesReadInPlace.Read {
        .success(
            Page(
                number: number, url: PageURL(string: "http://api.test/items?page=\(number)")!, status: .ok, headers: HTTPHeaders(),
                body: [], items: [], values: [:]))
    }

    private func number(_ read: PagesReadInPlace.Read?) -> Int? {
        guard case .success(let page)? = read else { return nil }
        return page.number
    }

    @Test("each page is taken once, by its index, in any order; what was never read is nil")
    func takesByIndex() {
        var pages = PagesReadInPlace()
        pages.insert(page(1), at: 0)
        pages.insert(page(2), at: 1)
        pages.insert(page(3), at: 2)
        #expect(pages.contains(0) && pages.contains(1) && pages.contains(2) && !pages.contains(3))
        #expect(number(pages.take(1)) == 2)
        #expect(!pages.contains(1) && pages.take(1) == nil)
        #expect(number(pages.take(0)) == 1)
        pages.insert(page(4), at: 3)
        #expect(number(pages.take(2)) == 3)
        #expect(number(pages.take(3)) == 4)
        #expect(pages.take(0) == nil && pages.take(2) == nil && pages.take(3) == nil)
    }

    @Test("a second read at the same index replaces the first; removeAll drops every page")
    func replacesAndClears() {
        var pages = PagesReadInPlace()
        for (index, first, second) in [(0, 1, 9), (1, 2, 8)] {
            pages.insert(page(first), at: index)
            pages.insert(page(second), at: index)
        }
        #expect(number(pages.take(0)) == 9)
        #expect(number(pages.take(1)) == 8)
        pages.insert(page(3), at: 2)
        pages.insert(page(4), at: 3)
        pages.removeAll()
        #expect(!pages.contains(2) && !pages.contains(3))
    }
}

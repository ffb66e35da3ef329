import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// review20 H3: a client's `?page=N` over an upstream that caps the size asked (`mock_cap`; the route `wrapped` asks 10,
/// the client 20) answered one page as the whole list: `/wrapped?page=3&per_page=20&mock_total=50&mock_cap=10` gave
/// items 21–30 of 21–50, under a 200. The mock numbers its pages by the size it serves.
@Suite struct ClientPageNumberCapEndToEndTests {
    @Test("a client's page over a capped size walks to the list's end", arguments: [(2, 10), (3, 20), (4, 30)])
    func aCappedClientPageWalksOn(page: Int, skipped: Int) async throws {
        try await TestStack.run { stack in
            let target = "/wrapped?page=\(page)&per_page=20&mock_total=50&mock_cap=10"
            let answer = try await stack.get(target)
            #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
            let whole = answer.body == MockDataset.page(offset: skipped, count: 50, total: 50)
            #expect(whole, "\(target): \(answer.text.prefix(300))")
            // Pages `page` through 5, and 6: the check past a full page at the stated end (as a walk from page 1 asks).
            #expect(stack.mock.log.count == 7 - page, "\(stack.mock.log.requests.map(\.target))")
        }
    }

    @Test("a client's short last page ends the list, at one request past it", arguments: ["404", "empty", "last"])
    func aShortLastPageEndsTheList(past: String) async throws {
        try await TestStack.run { stack in
            let target = "/wrapped?page=3&per_page=20&mock_total=50&mock_past_end=\(past)"
            let answer = try await stack.get(target)
            #expect(answer.status == 200, "\(target): \(answer.text.prefix(300))")
            let lastPage = answer.body == MockDataset.page(offset: 40, count: 10, total: 50)
            #expect(lastPage, "\(target): \(answer.text.prefix(300))")
            #expect(stack.mock.log.count <= (past == "last" ? 3 : 2), "\(stack.mock.log.requests.map(\.target))")
        }
    }
}

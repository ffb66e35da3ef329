import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock

/// A `cursor` route reads its cursor as a `next-url` route reads its link: a JSON number is a cursor (Twitter's
/// `next_cursor`, 0 on the last page), an object is neither a cursor nor an end (attack14 M2, review17 B8).
@Suite struct CursorValueKindsTests {
    @Test("a numeric cursor is sent back as written, and 0 ends the walk")
    func numericCursorWalksEveryPage() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/slack?mock_total=35&mock_cursor=number")
            #expect(response.status == 200)
            #expect(response.body == MockDataset.mergedJSON(total: 35))
            #expect(stack.mock.log.count == 4)
            #expect(stack.mock.log.requests.contains { $0.target.contains("cursor=\(MockService.numericCursorBase + 10)") })
        }
    }

    @Test("a cursor that is an object fails the walk instead of ending it")
    func objectCursorIsAnError() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/slack?mock_total=35&mock_cursor=object")
            #expect(response.status == 502)
            #expect(response.text.contains(#"its cursor at \"response_metadata.next_cursor\" is an object"#))
        }
    }
}

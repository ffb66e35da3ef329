import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// review20 F1/F2: a window's merged answer says what a capped walk of the same pages does not (`Link` rel=next from the
/// query as written, no `PageProxy-Truncated` at its own end), so the memo keeps it apart: a capped request and a window
/// of the same items never answer each other, and a window's `Link` is its own request's, not the first client's.
@Suite struct WindowMemoTests {
    /// A proxy with a cache (and its memo) in front of the mock's next-url (JSON:API) route.
    static func run(_ body: (TestStack) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pageproxy-window-memo-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let route = try #require(SchemeRoutes.all.first { $0.name == "jsonapi" })
        try await TestStack.run(routes: [route], configure: { $0.cache = CacheConfig(directory: root, maxBytes: 64 << 20) }) { stack in
            try await body(stack)
        }
    }

    static let window = "/jsonapi?mock_total=100&_offset=0&_limit=10"
    static let capped = "/jsonapi?mock_total=100&_max_items=10"
    static let next = "</jsonapi?mock_total=100&_offset=10&_limit=10>; rel=\"next\""

    @Test("a capped walk first, then a window of the same items: the window links on and is not truncated")
    func aCappedAnswerDoesNotAnswerAWindow() async throws {
        try await Self.run { stack in
            let capped = try await stack.get(Self.capped)
            #expect(capped.header("PageProxy-Truncated") == "true")
            #expect(capped.header("Link") == nil)
            let window = try await stack.get(Self.window)
            #expect(window.status == 200)
            #expect(window.body == capped.body)
            #expect(window.header("Link") == Self.next)
            #expect(window.header("PageProxy-Truncated") == nil)
            // Its repeat is the memo's, and says the same.
            let repeated = try await stack.get(Self.window)
            #expect(repeated.header("Link") == Self.next)
            #expect(repeated.header("PageProxy-Truncated") == nil)
        }
    }

    @Test("a window first, then a capped walk of the same items: the capped answer says it was truncated and has no Link")
    func aWindowDoesNotAnswerACappedWalk() async throws {
        try await Self.run { stack in
            #expect(try await stack.get(Self.window).header("Link") == Self.next)
            let capped = try await stack.get(Self.capped)
            #expect(capped.header("PageProxy-Truncated") == "true")
            #expect(capped.header("Link") == nil)
        }
    }

    @Test("a window asked with _fresh=1 does not give its spelling to a later plain window's Link")
    func aFreshWindowsLinkIsItsOwn() async throws {
        try await Self.run { stack in
            let fresh = try await stack.get(Self.window + "&_fresh=1")
            #expect(fresh.header("Link")?.contains("_fresh=1") == true)
            let plain = try await stack.get(Self.window)
            #expect(plain.header("Link") == Self.next)
            #expect(try await stack.get(Self.window).header("Link") == Self.next)
        }
    }
}

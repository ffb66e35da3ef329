import Testing

@testable import PageProxyCore

/// `morePath` on `next-url` and `cursor` (real19 F3): a `false` there ends the walk though the page still names a next
/// link or cursor, as Zendesk's last page does; without it the walk asks for one page more.
@Suite struct MorePathWalkTests {
    /// Zendesk-like pages of two items: page 2 is the last (`has_more` false) and still links on to an empty page 3.
    private static func page(_ number: Int, url: PageURL) -> UpstreamResponse {
        guard number <= 2 else {
            return .json(#"{"activities": [], "meta": {"has_more": false, "after_cursor": null}, "links": {"next": null}}"#)
        }
        let items = "[{\"id\": \(number * 2 - 1)}, {\"id\": \(number * 2)}]"
        let next = url.settingQueryValue(String(number + 1), for: "page[after]").description
        return .json(#"{"activities": \#(items), "meta": {"has_more": \#(number < 2), "after_cursor": "\#(number + 1)"}, "links": {"next": "\#(next)"}}"#)
    }

    private func walk(_ scheme: PaginationScheme) async throws -> (items: Int, requests: Int) {
        let transport = FakeTransport { url throws(UpstreamError) in
            Self.page(Int(url.queryValue("page[after]") ?? "1") ?? 1, url: url)
        }
        var walkOptions = PageWalker.Options()
        walkOptions.itemsPath = try #require(JSONPath("activities"))
        let walker = PageWalker(base: try #require(PageURL(string: "http://z.test/api/v2/activities.json")), scheme: scheme, options: walkOptions) {
            url, number throws(PaginationError) in
            do throws(UpstreamError) {
                return try await transport.send(UpstreamRequest(url: url), timeout: .seconds(5), maxBodyBytes: 1 << 20)
            } catch {
                throw .upstreamFailed(page: number, url: url, error: error)
            }
        }
        let items = try await walker.pages().flatMap(\.itemBytes).count
        return (items, transport.requestedURLs.count)
    }

    @Test("next-url and cursor: has_more false ends the walk on the last page; without morePath one request more",
          arguments: [false, true])
    func hasMoreFalseEndsTheWalk(cursor: Bool) async throws {
        let more = try #require(JSONPath("meta.has_more"))
        func scheme(_ morePath: JSONPath?) throws -> PaginationScheme {
            if cursor {
                var options = PaginationScheme.CursorInBody(
                    cursorPath: try #require(JSONPath("meta.after_cursor")), cursorParameter: "page[after]", sizeParameter: nil)
                options.morePath = morePath
                return .cursorInBody(options)
            }
            var options = PaginationScheme.NextURLInBody(nextPath: try #require(JSONPath("links.next")))
            options.morePath = morePath
            return .nextURLInBody(options)
        }
        let with = try await walk(try scheme(more))
        #expect(with.items == 4)
        #expect(with.requests == 2)
        let without = try await walk(try scheme(nil))
        #expect(without.items == 4)
        #expect(without.requests == 3)
    }
}

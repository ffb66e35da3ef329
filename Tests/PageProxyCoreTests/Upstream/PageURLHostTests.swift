import Testing

@testable import PageProxyCore

/// An IPv6 literal is kept without its brackets (Foundation on Linux keeps them in `URLComponents.host`), so the
/// URL's text, its `Host` header and its origin each have exactly one pair.
@Suite struct PageURLHostTests {
    @Test func ipv6LiteralHasOnePairOfBrackets() throws {
        let url = try #require(PageURL(string: "http://[::1]:8080/items?page=2"))
        #expect(url.host == "::1")
        #expect(url.hostHeader == "[::1]:8080")
        #expect(url.description == "http://[::1]:8080/items?page=2")
        #expect(url.origin.description == "http://[::1]:8080")
    }

    @Test func ipv6LinksStayOnTheSameOrigin() throws {
        let first = try #require(PageURL(string: "http://[2001:DB8::1]/items"))
        #expect(first.host == "2001:db8::1")
        let absolute = try #require(first.resolving("http://[2001:db8::1]/items?page=2"))
        #expect(absolute.origin == first.origin)
        let relative = try #require(first.resolving("/items?page=3"))
        #expect(relative.description == "http://[2001:db8::1]/items?page=3")
    }

    @Test func namesAndIPv4AreUnchanged() throws {
        let url = try #require(PageURL(string: "https://API.Example.test/x"))
        #expect(url.host == "api.example.test")
        #expect(url.hostHeader == "api.example.test")
        #expect(try #require(PageURL(string: "http://127.0.0.1:9/x")).hostHeader == "127.0.0.1:9")
    }
}

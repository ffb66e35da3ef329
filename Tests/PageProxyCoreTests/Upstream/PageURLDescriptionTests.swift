import Testing

@testable import PageProxyCore

/// A URL's text as bytes, made from its parts (what a page's cache key digests), is its `description`, byte for byte.
@Suite struct PageURLDescriptionTests {
    @Test(arguments: [
        "http://api.test/items?page=2&per_page=100", "https://api.test/items", "http://api.test:8080/a/b?x=%20y",
        "https://API.test:80/?", "http://[::1]:8080/items?page=2", "https://[2001:db8::1]/items", "http://127.0.0.1:1/%C3%A9?q=%C3%BC",
        "https://api.test:65535/items?cursor=abc%3D%3D",
    ])
    func theBytesAreTheDescriptions(text: String) throws {
        let url = try #require(PageURL(string: text))
        var bytes: [UInt8] = [7]
        url.appendDescription(to: &bytes)
        #expect(bytes == [7] + Array(url.description.utf8))
        #expect(url.descriptionByteCount == url.description.utf8.count)
    }

    /// A URL built from its parts with any port, a negative one included (nothing checks it).
    @Test(arguments: [0, 1, 9, 10, 80, 443, 99_999, -1, -80, Int.max, Int.min])
    func anyPortIsSpelledAsItsText(port: Int) {
        let url = PageURL(scheme: "http", host: "api.test", port: port, path: "/x", query: nil)
        var bytes: [UInt8] = []
        url.appendDescription(to: &bytes)
        #expect(bytes == Array(url.description.utf8))
        #expect(url.descriptionByteCount == url.description.utf8.count)
    }
}

import PageProxyCore
import Testing

@testable import PageProxy

@Suite struct MergedAnswerHeadersTests {
    private func names(_ headers: HTTPHeaders) -> [String] { headers.map(\.name) }

    @Test("with no extra fields: the answer's fields in order, with room for the ones set after them")
    func noExtra() {
        let headers = MergedAnswerHeaders.make(
            extra: HTTPHeaders(), pages: 3, items: 42, truncated: true, cache: "hit=3", stale: true, etag: "\"t\"")
        #expect(
            names(headers) == [
                "Content-Type", "PageProxy-Pages", "PageProxy-Items", "PageProxy-Truncated", "PageProxy-Cache",
                "PageProxy-Stale", "ETag",
            ])
        #expect(headers["PageProxy-Pages"] == "3" && headers["PageProxy-Items"] == "42" && headers["ETag"] == "\"t\"")
        #expect(headers.capacity >= headers.count + MergedAnswerHeaders.roomAfter)
        let short = MergedAnswerHeaders.make(
            extra: HTTPHeaders(), pages: 1, items: 0, truncated: false, cache: "miss=1", stale: false, etag: "\"u\"")
        #expect(names(short) == ["Content-Type", "PageProxy-Pages", "PageProxy-Items", "PageProxy-Cache", "ETag"])
        #expect(short.capacity >= short.count + MergedAnswerHeaders.roomAfter)
    }

    @Test("extra fields come first; one of the answer's own names is replaced in place, not repeated")
    func extraFirst() {
        let extra: HTTPHeaders = ["PageProxy-Scheme": "link", "etag": "\"old\""]
        let headers = MergedAnswerHeaders.make(
            extra: extra, pages: 2, items: 5, truncated: false, cache: "hit=2", stale: false, etag: "\"new\"")
        #expect(
            names(headers) == ["PageProxy-Scheme", "ETag", "Content-Type", "PageProxy-Pages", "PageProxy-Items", "PageProxy-Cache"])
        #expect(headers.values("ETag") == ["\"new\""])
        #expect(headers.capacity >= headers.count + MergedAnswerHeaders.roomAfter)
        #expect(extra.count == 2 && extra["ETag"] == "\"old\"")
    }
}

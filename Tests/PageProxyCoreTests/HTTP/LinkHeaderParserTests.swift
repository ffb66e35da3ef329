import PageProxyCore
import Testing

@Suite struct LinkHeaderParserTests {
    @Test func parsesGitHubPaginationHeader() {
        let value = "<https://api.github.com/repositories/1300192/issues?page=2>; rel=\"prev\", "
            + "<https://api.github.com/repositories/1300192/issues?page=4>; rel=\"next\", "
            + "<https://api.github.com/repositories/1300192/issues?page=515>; rel=\"last\", "
            + "<https://api.github.com/repositories/1300192/issues?page=1>; rel=\"first\""
        let links = LinkHeaderParser.parse(value)
        #expect(links.map(\.relations) == [["prev"], ["next"], ["last"], ["first"]])
        #expect(links.map(\.target) == [2, 4, 515, 1].map { "https://api.github.com/repositories/1300192/issues?page=\($0)" })
        #expect(links[1].parameters == ["rel": "next"])
    }

    @Test func keepsCommasAndSemicolonsInsideQuotedParameters() {
        let links = LinkHeaderParser.parse(
            "<https://x.test/a,b;c>; title=\"a, b; c\"; rel=next, <https://x.test/2>; title=\"say \\\"hi\\\"\"; rel=\"prev\"")
        #expect(links.count == 2)
        #expect(links.first?.target == "https://x.test/a,b;c")
        #expect(links.first?.parameters["title"] == "a, b; c")
        #expect(links.first?.relations == ["next"])
        #expect(links.last?.parameters["title"] == "say \"hi\"")
        #expect(links.last?.relations == ["prev"])
    }

    @Test func splitsSpaceSeparatedRelations() {
        let links = LinkHeaderParser.parse("</last>; rel=\"next  LAST\"")
        #expect(links == [LinkHeaderValue(target: "/last", relations: ["next", "last"], parameters: ["rel": "next  LAST"])])
    }

    @Test func acceptsUnquotedRelAndCaseInsensitiveNames() {
        let links = LinkHeaderParser.parse("</2> ;REL=Next ; Type=text/html;anchor")
        #expect(links.first?.relations == ["next"])
        #expect(links.first?.parameters == ["rel": "Next", "type": "text/html", "anchor": ""])
    }

    @Test func ignoresRepeatedRel() {
        #expect(LinkHeaderParser.parse("</2>; rel=next; rel=prev").first?.relations == ["next"])
    }

    @Test func readsEveryLinkField() {
        var headers = HTTPHeaders()
        headers.add("Link", "</1>; rel=prev")
        headers.add("Content-Type", "application/json")
        headers.add("link", "</3>; rel=next, </9>; rel=last")
        #expect(LinkHeaderParser.parse(headers).map(\.target) == ["/1", "/3", "/9"])
        #expect(LinkHeaderParser.parse(HTTPHeaders()).isEmpty)
    }

    @Test func skipsMalformedLinkValuesAndKeepsTheRest() {
        let links = LinkHeaderParser.parse("garbage, </a>; rel=next; broken \"x,y\", </b>; rel=last, <unterminated")
        #expect(links.map(\.target) == ["/b"])
    }

    @Test(arguments: ["", ",,,", "<", ">", "<>", "<a", ";;;", "\"", "<a>; rel=\"unterminated", "<a>;=x", "<a>; rel=", "\u{0}\u{FF}",
                      "<a>; \"", "<<>>", ",<a>,", "<a>; rel=\"\\", String(repeating: "<a>;", count: 1000)])
    func neverCrashesOnGarbage(input: String) {
        let links = LinkHeaderParser.parse(input)
        #expect(links.count <= 1000)
    }

    @Test func parsesEmptyRelAndEmptyTarget() {
        #expect(LinkHeaderParser.parse("<>; rel=\"\"") == [LinkHeaderValue(target: "", relations: [], parameters: ["rel": ""])])
    }

    @Test("attack22 item 2: only the first rel names relations; a quoted rel=next in another parameter names none")
    func relationsComeFromTheFirstRelOnly() {
        let titled = LinkHeaderParser.read(#"</1>; rel="prev"; title="rel=next""#)
        #expect(titled.links.map(\.relations) == [["prev"]])
        #expect(titled.malformed.isEmpty)
        let twice = LinkHeaderParser.read(#"</1>; rel="prev"; rel="next""#)
        #expect(twice.links.map(\.relations) == [["prev"]])
        #expect(twice.malformed.isEmpty)
    }

    @Test("attack22 item 3: an unclosed < ends at the next <, and the link-value after it is read")
    func unclosedTargetEndsAtTheNextLinkValue() {
        let reading = LinkHeaderParser.read(#"<http://x.test/decoy?page=1; rel="prev", <http://x.test/items?page=2>; rel="next""#)
        #expect(reading.links == [LinkHeaderValue(target: "http://x.test/items?page=2", relations: ["next"], parameters: ["rel": "next"])])
        #expect(reading.malformed == [#"<http://x.test/decoy?page=1; rel="prev", "#])
    }

    @Test("a skipped link-value's text is kept, to tell whether it names next")
    func keepsTheTextOfSkippedLinkValues() {
        let reading = LinkHeaderParser.read(#"<http://x.test/2> rel="next", </1>; rel=prev"#)
        #expect(reading.links.map(\.target) == ["/1"])
        #expect(reading.malformed == [#"<http://x.test/2> rel="next""#])
        var headers = HTTPHeaders()
        headers.add("Link", "garbage")
        headers.add("Link", "</3>; rel=next, <x")
        let both = LinkHeaderParser.read(headers)
        #expect(both.links == [LinkHeaderValue(target: "/3", relations: ["next"], parameters: ["rel": "next"])])
        #expect(both.malformed == ["garbage", "<x"])
    }

    @Test("attack22 item 1: a link is about the page unless its anchor resolves to another URL",
          arguments: [
            (nil, true), ("", true), ("#part", true), ("http://api.test/items?page=1&per_page=10", true),
            ("/items?per_page=10&page=1", true), ("?page=1&per_page=10", true), ("/other", false), ("/items", false),
            ("?page=2&per_page=10", false), ("http://elsewhere.test/items?page=1&per_page=10", false),
          ] as [(String?, Bool)])
    func anchorNamesTheContext(anchor: String?, isAbout: Bool) throws {
        let page = try #require(PageURL(string: "http://api.test/items?page=1&per_page=10"))
        let link = LinkHeaderValue(target: "/x", relations: ["next"], parameters: anchor.map { ["rel": "next", "anchor": $0] } ?? ["rel": "next"])
        #expect(link.isAbout(page) == isAbout)
    }

    @Test("an anchor equal to the URL a redirect answered at is the page's too")
    func anchorAtTheAnsweredURL() throws {
        let asked = try #require(PageURL(string: "http://api.test/old?page=1"))
        let answered = try #require(PageURL(string: "http://api.test/new?page=1"))
        let link = LinkHeaderValue(target: "/x", relations: ["next"], parameters: ["anchor": "/new?page=1"])
        #expect(link.isAbout(asked, answeredAt: answered))
        #expect(!link.isAbout(asked))
    }
}

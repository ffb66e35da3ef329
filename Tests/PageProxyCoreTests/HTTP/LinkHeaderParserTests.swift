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
}

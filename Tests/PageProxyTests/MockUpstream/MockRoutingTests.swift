import Testing
@testable import PageProxy
@testable import PageProxyServer
@testable import PageProxyMock

/// Routing, methods, bad parameters, HEAD and the common headers.
@Suite struct MockRoutingTests {
    let mock = MockUpstream()

    @Test(arguments: ["/", "/nope", "/github", "/GITHUB/items", "/items"])
    func unknownPathIs404(path: String) async {
        let response = await MockTestSupport.send(mock, path)
        #expect(response.status == 404)
        #expect(MockTestSupport.text(response) == #"{"error":"not found"}"#)
        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        #expect(response.header("Content-Length") == String(response.body.count))
    }

    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
    func otherMethodsAre405(method: String) async {
        for service in MockService.allCases {
            let response = await MockTestSupport.send(mock, service.path, method: method)
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD")
            #expect(MockTestSupport.text(response) == #"{"error":"method not allowed"}"#)
            #expect(response.header("Content-Length") == String(response.body.count))
        }
    }

    @Test func headHasGetHeadersAndNoBody() async {
        for service in MockService.allCases {
            let target = "\(service.path)?mock_total=25"
            let get = await MockTestSupport.send(mock, target)
            let head = await MockTestSupport.send(mock, target, method: "HEAD")
            #expect(head.status == get.status)
            #expect(head.body.isEmpty)
            #expect(head.headers.map(\.name) == get.headers.map(\.name))
            #expect(head.headers.map(\.value) == get.headers.map(\.value))
            #expect(head.header("Content-Length") == String(get.body.count))
        }
        let missing = await MockTestSupport.send(mock, "/missing", method: "HEAD")
        #expect(missing.status == 404)
        #expect(missing.body.isEmpty)
        #expect(missing.header("Content-Length") == String(#"{"error":"not found"}"#.utf8.count))
    }

    static let badValues = ["0", "-1", "abc", "", "1.5"]

    @Test(arguments: badValues) func badPageNumbersAre400(value: String) async {
        let cases: [(String, String)] = [
            ("/plain/items?page=", #"{"error":"invalid value for page: '\#(value)'"}"#),
            ("/wrapped/items?page=", #"{"message":"Invalid value for parameter 'page': '\#(value)'","documentation_url":"https://docs.github.com/rest"}"#),
            ("/github/items?page=", #"{"message":"Invalid value for parameter 'page': '\#(value)'","documentation_url":"https://docs.github.com/rest"}"#),
            ("/gitlab/items?page=", #"{"error":"page is invalid"}"#),
            ("/drf-pages/items/?page=", #"{"detail":"Invalid page."}"#),
            ("/jsonapi/items?page[number]=", #"{"errors":[{"status":"400","title":"Invalid Query Parameter","detail":"page[number] must be a positive integer, got '\#(value)'","source":{"parameter":"page[number]"}}]}"#),
        ]
        for (prefix, expected) in cases {
            let response = await MockTestSupport.send(mock, prefix + value)
            #expect(response.status == 400, "\(prefix)\(value)")
            #expect(MockTestSupport.text(response) == expected)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        }
    }

    @Test(arguments: badValues) func badPageSizesAre400(value: String) async {
        let targets = [
            "/plain/items?per_page=", "/wrapped/items?per_page=", "/github/items?per_page=",
            "/gitlab/items?per_page=", "/drf/items/?limit=", "/drf-pages/items/?page_size=",
            "/jsonapi/items?page[size]=", "/stripe/items?limit=", "/offset/items?limit=",
        ]
        for prefix in targets {
            let response = await MockTestSupport.send(mock, prefix + value)
            #expect(response.status == 400, "\(prefix)\(value)")
            #expect(response.body.first == UInt8(ascii: "{"))
        }
        // Slack answers every error with HTTP 200 and "ok":false.
        let slack = await MockTestSupport.send(mock, "/slack/items?limit=" + value)
        #expect(slack.status == 200)
        #expect(MockTestSupport.text(slack) == #"{"ok":false,"error":"invalid_arguments"}"#)
    }

    @Test func badOffsetsAndStripeLimits() async {
        for prefix in ["/drf/items/?offset=", "/offset/items?offset="] {
            for value in ["-1", "abc", ""] {
                let response = await MockTestSupport.send(mock, prefix + value)
                #expect(response.status == 400, "\(prefix)\(value)")
            }
        }
        let zero = await MockTestSupport.send(mock, "/stripe/items?limit=0")
        #expect(MockTestSupport.text(zero) == #"{"error":{"type":"invalid_request_error","message":"This value must be greater than or equal to 1.","param":"limit"}}"#)
        let text = await MockTestSupport.send(mock, "/stripe/items?limit=ten")
        #expect(MockTestSupport.text(text) == #"{"error":{"type":"invalid_request_error","message":"Invalid integer: ten","param":"limit"}}"#)
        let drf = await MockTestSupport.send(mock, "/drf/items/?limit=0")
        #expect(MockTestSupport.text(drf) == #"{"detail":"Invalid limit."}"#)
    }

    @Test func badMockOptionsAre400() async {
        for query in ["mock_total=-1", "mock_total=x", "mock_latency_ms=-5", "mock_latency_ms=soon",
                      "mock_fault=explode@2", "mock_fault=status500@0", "mock_fault=status500"] {
            let response = await MockTestSupport.send(mock, "/plain/items?" + query)
            #expect(response.status == 400, "\(query)")
            #expect(MockTestSupport.text(response).hasPrefix(#"{"error":"invalid value for mock_"#))
        }
    }

    @Test func hugeNumbersDoNotOverflow() async {
        let big = String(Int.max)
        for target in ["/github/items?page=\(big)&per_page=100", "/jsonapi/items?page[number]=\(big)",
                       "/drf/items/?offset=\(big)&limit=100", "/offset/items?offset=\(big)",
                       "/drf-pages/items/?page=\(big)", "/gitlab/items?page=\(big)&mock_fault=foreign@1000000000"] {
            let response = await MockTestSupport.send(mock, target)
            #expect([200, 404].contains(response.status), "\(target)")
        }
        let tooBig = await MockTestSupport.send(mock, "/plain/items?mock_fault=loop@\(big)")
        #expect(tooBig.status == 400)
    }

    @Test func absoluteFormTargetAndMissingHost() async {
        let absolute = await MockTestSupport.send(mock, "http://localhost:8080/github/items?mock_total=25&per_page=10")
        #expect(absolute.status == 200)
        #expect(absolute.body == MockDataset.page(offset: 0, count: 10, total: 25))
        let noHost = await mock.respond(to: MockRequest(method: "GET", target: "/drf/items/?mock_total=25&limit=10", headers: []))
        let next = MockTestSupport.string(MockTestSupport.members(noHost.body)["next"])
        #expect(next == "http://localhost/drf/items/?limit=10&mock_total=25&offset=10")
        let lowercaseHost = await mock.respond(to: MockRequest(method: "GET", target: "/drf/items/?mock_total=25&limit=10", headers: [(name: "host", value: "example.test:9")]))
        #expect(MockTestSupport.string(MockTestSupport.members(lowercaseHost.body)["next"]) == "http://example.test:9/drf/items/?limit=10&mock_total=25&offset=10")
    }

    @Test func queryDecodingAndEncoding() {
        let query = MockQuery(target: "/p?a=1&b=x%20y+z&page%5Bnumber%5D=2&flag&c=%zz#frag")
        #expect(query.path == "/p")
        #expect(query.value("a") == "1")
        #expect(query.value("b") == "x y z")
        #expect(query.value("page[number]") == "2")
        #expect(query.value("flag") == "")
        #expect(query.value("c") == "%zz")
        // An escape that ends the value (and the target) is decoded too.
        #expect(MockQuery(target: "/p?q=a%2C").value("q") == "a,")
        #expect(MockQuery(target: "/p?q=%41&r=1").value("q") == "A")
        #expect(MockQuery(target: "/p?q=a%4").value("q") == "a%4")
        #expect(MockQuery.encode("page[size]") == "page%5Bsize%5D")
        #expect(MockQuery.encode("status500@2,loop@3") == "status500%402%2Cloop%403")
        #expect(MockQuery.encode("é~-._") == "%C3%A9~-._")
    }
}

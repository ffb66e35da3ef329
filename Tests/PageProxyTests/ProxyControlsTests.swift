import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// The per-request controls: query and header forms, `Accept` with weights, and what reaches the upstream.
@Suite struct ProxyControlsTests {
    private func parse(_ target: String, _ headers: HTTPHeaders = HTTPHeaders()) throws(ProxyControls.Invalid) -> ProxyControls {
        try ProxyControls.parse(HTTPRequestHead(method: .get, target: target, version: .http1_1, headers: headers))
    }

    @Test("controls are taken out of the query; everything else reaches the upstream untouched")
    func controlsLeaveTheUpstreamQuery() throws {
        let controls = try parse("/r?state=open&_format=ndjson&_max_pages=2&page%5Bsize%5D=5&_fresh=1")
        #expect(controls.format == .ndjson)
        #expect(controls.maxPages == 2)
        #expect(controls.fresh)
        #expect(controls.upstreamQuery == "state=open&page%5Bsize%5D=5")
    }

    /// attack6 F6 — RFC 9111 §5.2.1: the client's request directives, in any spelling of their numbers.
    @Test("a client's Cache-Control directives: max-age=0 in any spelling revalidates; max-age=N, min-fresh, only-if-cached, no-store are kept")
    func clientCacheDirectives() throws {
        func directives(_ value: String) throws -> ProxyControls {
            try parse("/r", HTTPHeaders([("Cache-Control", value)]))
        }
        for value in ["max-age=0", "max-age=00", #"max-age="0""#, "MAX-AGE=0", "no-cache", "max-age=5, no-cache"] {
            #expect(try directives(value).fresh, "\(value)")
        }
        for value in ["max-age=5", "max-age=abc", "min-fresh=10", "only-if-cached", "no-store", "max-stale"] {
            #expect(try !directives(value).fresh, "\(value)")
        }
        #expect(try directives("max-age=5").cacheDirectives.maxAge == .seconds(5))
        #expect(try directives("max-age=005").cacheDirectives.maxAge == .seconds(5))
        #expect(try directives("max-age=0").cacheDirectives.maxAge == nil)
        #expect(try directives("min-fresh=100").cacheDirectives.minFresh == .seconds(100))
        #expect(try directives("only-if-cached").cacheDirectives.onlyIfCached)
        #expect(try directives("no-store").cacheDirectives.noStore)
        #expect(try directives("no-store").cacheDirectives.bypassesMemo)
        #expect(try !directives("no-cache").cacheDirectives.bypassesMemo)
        // `_fresh=0` still wins over a header that asks for revalidation.
        #expect(try !parse("/r?_fresh=0", HTTPHeaders([("Cache-Control", "max-age=00")])).fresh)
    }

    @Test("a control given twice is a 400-worthy error, not a silent pick", arguments: ["_format=json&_format=ndjson", "_max_items=1&_max_items=2"])
    func duplicateControlIsRefused(query: String) {
        #expect(throws: ProxyControls.Invalid.self) { try parse("/r?" + query) }
    }

    /// attack11 L3 — RFC 9110 §5.3: a header control on two lines is the same as its values comma-joined on one: a
    /// 400 for a one-value control (the first line used to win silently), the joined list for `PageProxy-Fields`.
    @Test("a header control on two lines is its comma-joined value")
    func headerControlOnTwoLines() throws {
        for (name, first, second) in [
            ("PageProxy-Max-Items", "3", "4"), ("PageProxy-Fresh", "true", "bogus"), ("PageProxy-Format", "json", "ndjson"),
            ("PageProxy-Offset", "1", "2"),
        ] {
            #expect(throws: ProxyControls.Invalid.self, "\(name)") { try parse("/r", HTTPHeaders([(name, first), (name, second)])) }
            #expect(throws: ProxyControls.Invalid.self, "\(name)") { try parse("/r", HTTPHeaders([(name, "\(first), \(second)")])) }
        }
        let fields = try parse("/r", HTTPHeaders([("PageProxy-Fields", "id"), ("PageProxy-Fields", "owner.login")])).fields
        #expect(fields?.description == "id,owner.login")
        // The query still wins over the header, however many lines it has.
        #expect(try parse("/r?_max_items=5", HTTPHeaders([("PageProxy-Max-Items", "3"), ("PageProxy-Max-Items", "4")])).maxItems == 5)
    }

    @Test("Accept asks for NDJSON only with a weight above zero", arguments: [
        ("application/x-ndjson", OutputFormat.ndjson), ("application/json, application/x-ndjson;q=0.5", .ndjson),
        ("application/x-ndjson;q=0", .json), ("application/x-ndjson; q=0.0, application/json", .json), ("application/json", .json),
        // Optional white space (SP, HTAB) around each part, trimmed by hand since the eighteenth pass of issue 13.
        ("application/x-ndjson \t;\t q=0", .json), ("application/jsonl\t; q=0.5 ", .ndjson), ("application/x-ndjson ;;", .ndjson),
    ])
    func acceptWeights(accept: String, format: OutputFormat) throws {
        #expect(try parse("/r", ["Accept": accept]).format == format)
    }

    @Test("the query form wins over the header form")
    func queryWinsOverHeader() throws {
        #expect(try parse("/r?_format=json", ["PageProxy-Format": "ndjson", "Accept": "application/x-ndjson"]).format == .json)
    }
}

/// The controls for asking less: windows, fields and explain, in both forms, and their refusals.
@Suite struct CallerControlsTests {
    private func parse(_ target: String, _ headers: HTTPHeaders = HTTPHeaders()) throws(ProxyControls.Invalid) -> ProxyControls {
        try ProxyControls.parse(HTTPRequestHead(method: .get, target: target, version: .http1_1, headers: headers))
    }

    @Test func windowFieldsAndExplainInTheQuery() throws {
        let controls = try parse("/r?_offset=40&_limit=20&_fields=id%2Cowner.login&_explain=1&q=x")
        #expect(controls.window == ItemWindow(offset: 40, limit: 20))
        #expect(controls.fields?.description == "id,owner.login")
        #expect(controls.explain)
        #expect(controls.upstreamQuery == "q=x")
    }

    @Test func windowFieldsAndExplainInHeaders() throws {
        let controls = try parse(
            "/r", ["PageProxy-Offset": "5", "PageProxy-Limit": "3", "PageProxy-Fields": "id", "PageProxy-Explain": "true"])
        #expect(controls.window == ItemWindow(offset: 5, limit: 3))
        #expect(controls.fields?.description == "id")
        #expect(controls.explain)
    }

    @Test func anOffsetAloneRunsToTheEndAndALimitAloneStartsAtZero() throws {
        #expect(try parse("/r?_offset=7").window == ItemWindow(offset: 7, limit: Int.max))
        #expect(try parse("/r?_limit=7").window == ItemWindow(offset: 0, limit: 7))
        #expect(try parse("/r").window == nil)
    }

    @Test(
        "bad values are refused, naming the control",
        arguments: [
            ("_offset=-1", "_offset"), ("_offset=x", "_offset"), ("_limit=0", "_limit"), ("_fields=a..b", "_fields"), ("_fields=", "_fields"),
            ("_explain=maybe", "_explain"), ("_limit=1&_limit=2", "_limit"),
        ])
    func badValues(query: String, control: String) {
        #expect {
            try parse("/r?" + query)
        } throws: { error in
            (error as? ProxyControls.Invalid)?.control == control
        }
    }

    @Test("a bad value's message names the control as the client wrote it: the query's name or the header's")
    func aBadValueIsNamedAsWritten() {
        func message(_ target: String, _ headers: HTTPHeaders = HTTPHeaders()) -> String? {
            do {
                _ = try parse(target, headers)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message("/r", ["PageProxy-Max-Pages": "-1"])?.hasPrefix("PageProxy-Max-Pages must be") == true)
        #expect(message("/r?_max_pages=-1")?.hasPrefix("_max_pages must be") == true)
        #expect(message("/r", ["PageProxy-Fresh": "maybe"])?.hasPrefix("PageProxy-Fresh must be") == true)
        #expect(message("/r", ["PageProxy-Format": "xml"])?.hasPrefix("PageProxy-Format must be") == true)
        #expect(message("/r?_limit=0", ["PageProxy-Limit": "5"])?.hasPrefix("_limit must be") == true)
    }

    /// attack12 U2: `_max_items=99999999999999999999` said "must be a whole number"; it is one, too large.
    @Test(arguments: ["_max_items", "_max_pages", "_offset", "_limit"])
    func aNumberTooLargeSaysTheBound(control: String) {
        func message(_ text: String) -> String? {
            do {
                _ = try parse("/r?\(control)=\(text)")
                return nil
            } catch {
                return error.control == control ? error.message : "another control: \(error.control)"
            }
        }
        for text in ["99999999999999999999", "9223372036854775808", "018446744073709551616"] {
            #expect(message(text) == "\(control) is too large: at most 9223372036854775807, not \"\(text)\"")
        }
        #expect(message("9223372036854775807") == nil)
        for text in ["-99999999999999999999", "1e30", "x", "+", "+18446744073709551616"] {
            #expect(message(text)?.contains("must be a whole number of at least") == true, "\(text)")
        }
    }

    /// `Int` takes a sign: `_max_items=+5` was taken as 5 and `_offset=-0` as 0. Controls take ASCII digits only.
    @Test(arguments: ["_max_items", "_max_pages", "_offset", "_limit"])
    func aSignOrSpaceIsRefused(control: String) {
        let least = control == "_offset" ? 0 : 1
        for text in ["+5", "-0", "%2B5", "5%20", "%205"] {
            do {
                let controls = try parse("/r?\(control)=\(text)")
                Issue.record("\(control)=\(text) was taken: \(controls)")
            } catch {
                #expect(error.control == control)
                #expect(error.message.hasPrefix("\(control) must be a whole number of at least \(least), in the digits 0-9 only, not"), "\(error.message)")
            }
        }
        #expect(throws: Never.self) { try parse("/r?\(control)=05") }
    }

    @Test("a signed control is a 400 naming it, end to end")
    func aSignedControlIsA400() async throws {
        try await TestStack.run { stack in
            let response = try await stack.get("/plain?_max_items=+5")
            #expect(response.status == 400)
            #expect(response.text.contains("\"control\":\"_max_items\""), "\(response.text)")
            #expect(response.text.contains("digits 0-9 only"), "\(response.text)")
            #expect(stack.mock.log.count == 0)
        }
    }

    @Test("a control's value and a route's name are percent-decoded when they hold an escape, and kept as they are otherwise")
    func escapesAreDecodedOnlyWhereThereAreSome() throws {
        let controls = try parse("/r?_fields=id%2Cname&_max_items=7&_format=ndjson")
        #expect(controls.fields?.description == "id,name")
        #expect(controls.maxItems == 7)
        #expect(controls.format == .ndjson)
        #expect(throws: ProxyControls.Invalid.self) { try parse("/r?_max_items=%zz") }
        let router = Router(routes: [
            RouteConfig.makeForTests(name: "two words", upstream: "http://api.test/a", pagination: .pageNumber(PaginationScheme.PageNumber())),
            RouteConfig.makeForTests(name: "plain", upstream: "http://api.test/b", pagination: .pageNumber(PaginationScheme.PageNumber())),
        ])
        guard case .aggregate(let spaced, let subpath) = router.destination(for: "/two%20words/x") else {
            Issue.record("an escaped route name is not found")
            return
        }
        #expect(spaced.name == "two words" && subpath == "/x")
        guard case .aggregate(let plain, _) = router.destination(for: "/plain") else {
            Issue.record("a plain route name is not found")
            return
        }
        #expect(plain.name == "plain")
        guard case .notFound = router.destination(for: "/two%2") else {
            Issue.record("a malformed escape names no route")
            return
        }
    }
}

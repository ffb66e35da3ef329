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

    @Test("a control given twice is a 400-worthy error, not a silent pick", arguments: ["_format=json&_format=ndjson", "_max_items=1&_max_items=2"])
    func duplicateControlIsRefused(query: String) {
        #expect(throws: ProxyControls.Invalid.self) { try parse("/r?" + query) }
    }

    @Test("Accept asks for NDJSON only with a weight above zero", arguments: [
        ("application/x-ndjson", OutputFormat.ndjson), ("application/json, application/x-ndjson;q=0.5", .ndjson),
        ("application/x-ndjson;q=0", .json), ("application/x-ndjson; q=0.0, application/json", .json), ("application/json", .json),
    ])
    func acceptWeights(accept: String, format: OutputFormat) throws {
        #expect(try parse("/r", ["Accept": accept]).format == format)
    }

    @Test("the query form wins over the header form")
    func queryWinsOverHeader() throws {
        #expect(try parse("/r?_format=json", ["PageProxy-Format": "ndjson", "Accept": "application/x-ndjson"]).format == .json)
    }
}

import Foundation
import PageProxyCore

/// graphene-django's Relay connection over GET and djangorestframework-datatables as scripts/real-upstreams found
/// them (branch real15).
extension MockWireFormats {
    /// graphene-django: `{"data": {"things": {"totalCount": T, "edges": [{"node": {…}}, …], "pageInfo": {"hasNextPage":
    /// …, "endCursor": "…"}}}}`, compact; the end cursor (base64 of `arrayconnection:<index>`) is the last edge's, there
    /// on the last page too (`hasNextPage` false), null on a page of no edges.
    package static func graphene(_ window: MockWindow) -> MockResponse {
        relayConnection(window, head: #"{"data":{"things":{"totalCount":\#(window.total),"edges":"#)
    }

    /// A Relay connection's page after `head` (which opens `edges`): the edges, then `pageInfo`.
    static func relayConnection(_ window: MockWindow, head: String) -> MockResponse {
        let end = window.count == 0 ? "null" : JSONText.string(MockService.relayCursor(window.offset + window.count - 1))
        var edges: [UInt8] = [UInt8(ascii: "[")]
        for index in window.offset..<window.offset + window.count {
            if index > window.offset { edges.append(UInt8(ascii: ",")) }
            edges += Array(#"{"node":"#.utf8) + MockDataset.item(index) + [UInt8(ascii: "}")]
        }
        edges.append(UInt8(ascii: "]"))
        let tail = #","pageInfo":{"hasNextPage":\#(!window.isLast),"endCursor":\#(end)}}}}"#
        return .json(status: 200, body: MockJSON.envelope(head, edges, tail))
    }

    /// djangorestframework-datatables: `{"recordsTotal": T, "recordsFiltered": T, "data": […], "draw": N}`, compact,
    /// `draw` echoed (1 by default).
    package static func datatables(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        let draw = Int(context.query.value("draw") ?? "1") ?? 1
        let head = #"{"recordsTotal":\#(window.total),"recordsFiltered":\#(window.total),"data":"#
        return .json(status: 200, body: MockJSON.envelope(head, window.itemsJSON, #","draw":\#(draw)}"#))
    }
}

extension MockService {
    /// graphene's cursor for the item at `index`: base64 of `arrayconnection:<index>`.
    static func relayCursor(_ index: Int) -> String { Data("arrayconnection:\(index)".utf8).base64EncodedString() }

    /// The index a cursor names; nil for anything else.
    static func relayIndex(_ cursor: String) -> Int? {
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8), text.hasPrefix("arrayconnection:") else {
            return nil
        }
        return Int(text.dropFirst("arrayconnection:".count)).flatMap { $0 >= 0 ? $0 : nil }
    }

    /// graphene-django over GET: `first` and `after` only as GraphQL variables (the JSON of `variables`; a plain
    /// `?after=` is not read), `first` at most the largest page (a larger one an error in a 200), none the largest.
    /// - Parameter error: the service's error in a 200 (graphene's, Strawberry's).
    func grapheneWindow(_ context: MockContext, error: (String) -> MockResponse = MockErrors.grapheneError) -> Parsed {
        var (first, after): (Int?, Int?) = (nil, nil)
        if let text = context.query.value("variables") {
            guard let variables = try? QueryJSONDecoder.decode(text), case .object = variables else { return .reply(error("Variables are invalid JSON.")) }
            if case .number(let number)? = variables.member("first") { first = Int(number) }
            if case .string(let cursor)? = variables.member("after") {
                guard let index = Self.relayIndex(cursor) else { return .reply(error("Invalid cursor")) }
                after = index
            }
        }
        let size = first ?? context.maxPageSize
        guard size <= context.maxPageSize else {
            return .reply(error("Requesting \(size) records on the `things` connection exceeds the `first` limit of \(context.maxPageSize) records."))
        }
        return .window(MockWindow(offset: min((after ?? -1) + 1, Int.max / 2), size: max(size, 1), total: context.total))
    }

    /// djangorestframework-datatables' page-number class: `start` an item offset read as the page `start / length + 1`
    /// (`start=15&length=10` is the second page, items 11–20), a page past the last a 404 whose `data` is an object.
    func datatablesWindow(_ context: MockContext) -> Parsed {
        guard let size = context.pageSize("length") else { return .reply(MockErrors.badParameter(self, "length", context.query.value("length") ?? "")) }
        guard let start = context.offset("start") else { return .reply(MockErrors.badParameter(self, "start", context.query.value("start") ?? "")) }
        let window = MockWindow(page: start / size + 1, size: size, total: context.total)
        guard window.page <= window.pageCount else { return .reply(MockErrors.datatablesInvalidPage()) }
        return .window(window)
    }
}

extension MockErrors {
    /// graphene's error in a 200: `{"errors": [{"message", "locations", "path"}], "data": {"things": null}}`.
    package static func grapheneError(_ message: String) -> MockResponse {
        let body = #"{"errors":[{"message":"# + JSONText.string(message) + #","locations":[{"line":1,"column":2}],"path":["things"]}],"data":{"things":null}}"#
        return .json(status: 200, body: Array(body.utf8))
    }

    /// djangorestframework-datatables' 404 past the last page: DRF's `{"detail": …}` as its `data`.
    package static func datatablesInvalidPage() -> MockResponse {
        .json(status: 404, body: Array(#"{"data":{"detail":"Invalid page."},"recordsFiltered":1,"recordsTotal":1,"draw":1}"#.utf8))
    }
}

import Foundation
import PageProxyCore
import Testing

@testable import PageProxy
@testable import PageProxyMock
@testable import PageProxyServer

/// fix31's leftover: a window over a walk that starts mid-list (the client's own `?page=3` or `?offset=20`, or a
/// route whose `upstream` starts at `?page=3`) counts its `_offset` from the walk's start, while the total the upstream
/// states counts the whole list. `PageProxy-Total` stays the upstream's; `rel="next"` and the check that the items
/// outnumber the total count the items the total leaves from the walk's start (README "Windows").
@Suite struct MidListWindowEndToEndTests {
    /// 45 items, pages of 10: from page 3 (items 21–45 by id), 25 are left.
    static let total = 45

    /// The route, and the client's own query that starts its walk at item 21 (id).
    static let starts = [("wrapped", "page=3"), ("drf", "offset=20"), ("wrapped-from-3", "")]

    /// The mock's `wrapped` route again, its `upstream` at page 3 (README: windows are counted from where it starts).
    static var routes: [TestStack.Route] {
        var fromPage3 = SchemeRoutes.all.first { $0.name == "wrapped" }!
        fromPage3.name = "wrapped-from-3"
        fromPage3.mockPath += "?page=3"
        return SchemeRoutes.all + [fromPage3]
    }

    @Test("a scroll by Link from mid-list gets every item from there to the end, in windows none of which is empty (before: two empty windows past the end)",
          arguments: starts.map { "\($0.0) \($0.1)" }, ["json", "ndjson"])
    func aScrollFromMidListEndsAtTheListsEnd(start: String, format: String) async throws {
        let (route, own) = (String(start.split(separator: " ")[0]), start.split(separator: " ").dropFirst().first.map(String.init))
        try await TestStack.run(routes: Self.routes) { stack in
            var target: String? = "/\(route)?mock_total=\(Self.total)\(own.map { "&" + $0 } ?? "")&_format=\(format)&_limit=10"
            var windows: [[Int]] = []
            while let asked = target, windows.count < 6 {
                let answer = try await stack.get(asked)
                #expect(answer.status == 200, "\(asked): \(answer.text.prefix(300))")
                let ids = MidListIDs.of(answer.body)
                windows.append(ids)
                // The upstream's total, the whole list's, as a merged answer from the same page states it.
                #expect(answer.header("PageProxy-Total") == String(Self.total), "\(asked)")
                #expect(answer.header("PageProxy-Truncated") == nil, "\(asked)")
                if format == "json" { #expect(answer.header("PageProxy-Items") == String(ids.count), "\(asked)") }
                // `prev` from the second window on, to the window before it from the same start.
                let link = answer.header("Link") ?? ""
                if windows.count > 1 {
                    #expect(link.contains("_offset=\((windows.count - 2) * 10)&_limit=10>; rel=\"prev\""), "\(asked): \(link)")
                }
                target = MidListIDs.nextTarget(link)
            }
            #expect(windows == [Array(21...30), Array(31...40), Array(41...45)], "\(route) \(format): \(windows)")
        }
    }

    @Test("a window ending on the list's last item links nowhere; one ending short of it links on", arguments: starts.map { "\($0.0) \($0.1)" })
    func theLastWindowFromMidListHasNoNext(start: String) async throws {
        let (route, own) = (String(start.split(separator: " ")[0]), start.split(separator: " ").dropFirst().first.map(String.init))
        let query = "mock_total=\(Self.total)\(own.map { "&" + $0 } ?? "")"
        try await TestStack.run(routes: Self.routes) { stack in
            // Items 41–45 of the list, the window's 20–24 from the walk's start: the end (before: `next` at 25).
            let last = try await stack.get("/\(route)?\(query)&_offset=20&_limit=5")
            #expect(MidListIDs.of(last.body) == Array(41...45))
            #expect(last.header("Link") == "</\(route)?\(query)&_offset=15&_limit=5>; rel=\"prev\"")
            let before = try await stack.get("/\(route)?\(query)&_offset=15&_limit=5")
            #expect(MidListIDs.of(before.body) == Array(36...40))
            #expect(MidListIDs.nextTarget(before.header("Link")) == "/\(route)?\(query)&_offset=20&_limit=5")
        }
    }

    /// README: a client's own next link names no place in the list; the walk counts as from the list's start. Pinned (it
    /// is so on main too): the scroll holds every item with no empty window, and the window at the list's end, like the
    /// merged answer from there, states no total (its walk found fewer items than it says).
    @Test("a scroll from a client's own JSON:API page link: every item from there, no empty window, no total at the end")
    func aScrollFromAClientsOwnNextLink() async throws {
        let route = SchemeRoutes.jsonAPIWithTotal(name: "counted-jsonapi")
        let start = "/counted-jsonapi?mock_total=\(Self.total)&page%5Bnumber%5D=3&page%5Bsize%5D=10"
        try await TestStack.run(routes: [route]) { stack in
            var (target, windows, totals): (String?, [[Int]], [String?]) = (start + "&_limit=10", [], [])
            while let asked = target, windows.count < 6 {
                let answer = try await stack.get(asked)
                windows.append(MidListIDs.of(answer.body))
                totals.append(answer.header("PageProxy-Total"))
                target = MidListIDs.nextTarget(answer.header("Link"))
            }
            #expect(windows == [Array(21...30), Array(31...40), Array(41...45)], "\(windows)")
            #expect(totals == ["45", "45", nil])
            let merged = try await stack.get(start)
            #expect(MidListIDs.of(merged.body) == Array(21...45))
            #expect(merged.header("PageProxy-Total") == nil)
        }
    }

    /// review12's rule from mid-list: a walk whose own start is past the total finds nothing, which contradicts nothing
    /// (before: its empty first page "disproved" the 45 it counted from the list's start). A page number's empty page
    /// says nothing of the items before it (`ItemsBeforeWalk` counts them by the page's own items), so only an offset
    /// tells.
    @Test("a client's own offset past the total: an empty window that keeps the total")
    func aClientOffsetPastTheTotalKeepsIt() async throws {
        try await TestStack.run { stack in
            let past = try await stack.get("/drf?mock_total=\(Self.total)&offset=60&_limit=10")
            #expect(past.status == 200)
            #expect(past.text == "[]")
            #expect(past.header("PageProxy-Total") == String(Self.total))
            #expect(past.header("Link")?.contains("rel=\"next\"") != true, "\(past.header("Link") ?? "-")")
        }
    }

    @Test("items past a low total counted from mid-list: no PageProxy-Total, in a merged answer and in a window (before: the total 27 beside ids 21-45)",
          arguments: starts.map { "\($0.0) \($0.1)" })
    func itemsPastALowTotalFromMidList(start: String) async throws {
        let (route, own) = (String(start.split(separator: " ")[0]), start.split(separator: " ").dropFirst().first.map(String.init))
        // The upstream says 27 (60 % of 45): 7 left from item 21, and the walk finds 25.
        let query = "mock_total=\(Self.total)&mock_count_percent=60\(own.map { "&" + $0 } ?? "")"
        try await TestStack.run(routes: Self.routes) { stack in
            let whole = try await stack.get("/\(route)?\(query)")
            let window = try await stack.get("/\(route)?\(query)&_limit=100")
            for (name, answer) in [("merged", whole), ("window", window)] {
                let ids = MidListIDs.of(answer.body)
                #expect(ids.first == 21 && ids.count > 7, "\(name): \(ids)")
                #expect(answer.header("PageProxy-Total") == nil, "\(name): \(ids.count) items from item 21 beside a total of 27")
            }
        }
    }
}

/// What a test of answers reads from them: the mock items' ids, and the target a `Link` field's `rel="next"` names.
enum MidListIDs {
    /// The `id` of each item, in order (the mock's items carry no other `"id"` member).
    static func of(_ body: [UInt8]) -> [Int] {
        String(decoding: body, as: UTF8.self).components(separatedBy: #"{"id":"#).dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
    }

    /// The path and query of the `rel="next"` of a `Link` field; nil for none.
    static func nextTarget(_ link: String?) -> String? {
        guard let link else { return nil }
        for part in link.components(separatedBy: ",") where part.contains("rel=\"next\"") {
            guard let open = part.firstIndex(of: "<"), let close = part.firstIndex(of: ">") else { continue }
            return String(part[part.index(after: open)..<close])
        }
        return nil
    }
}

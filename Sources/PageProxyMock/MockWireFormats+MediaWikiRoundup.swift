import Foundation
import PageProxyCore

/// MediaWiki's Action API and Roundup's REST API, as real20 ran them (MediaWiki 1.39 on SQLite, Roundup 2.6).
extension MockWireFormats {
    /// MediaWiki's `action=query`. A list module (`list=allpages`, `?aplimit=&apcontinue=`):
    /// `{"batchcomplete": true, "continue": {"apcontinue": "Item_101", "continue": "-||"}, "query": {"allpages": […]}}`,
    /// no `continue` on the last page. A generator with a prop module (`?generator=allpages&gaplimit=&gapcontinue=`,
    /// `&cllimit=&clcontinue=`): the props of a generator batch come `cllimit` pages at a time, continued by
    /// `{"clcontinue": "<pageid>|Cat", "continue": "||"}` (the request's `gapcontinue` written again beside it, and
    /// `"continue": "gapcontinue||"`, past the first batch); once the batch's props are done, the next batch by
    /// `{"gapcontinue": "Item_N", "continue": "gapcontinue||"}`, with no `clcontinue`. **A client sends every member back
    /// on the original request** (MediaWiki's own rule): a `clcontinue` outside the batch `gapcontinue` names is a
    /// `badcontinue` error, as a stale one kept from the batch before would be. Here the page holds the items whose props
    /// it carries; the real one lists every page of the batch in each answer, the others without their props.
    package static func mediaWiki(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        let end = window.offset + window.count
        let wayOn: String?
        let list: String
        if let batch = MockService.mediaWikiBatch(context) {
            list = "pages"
            let batchEnd = min(batch.start + batch.size, window.total)
            let again = batch.start > 0 ? #""gapcontinue": \#(JSONText.string("Item_\(batch.start + 1)")), "# : ""
            let continued = batch.start > 0 ? "gapcontinue||" : "||"
            if end < batchEnd {
                wayOn = #"{"clcontinue": \#(JSONText.string("\(end + 1)|Cat")), \#(again)"continue": "\#(continued)"}"#
            } else if batchEnd < window.total {
                wayOn = #"{"gapcontinue": \#(JSONText.string("Item_\(batchEnd + 1)")), "continue": "gapcontinue||"}"#
            } else {
                wayOn = nil
            }
        } else {
            list = "allpages"
            wayOn = end < window.total ? #"{"apcontinue": \#(JSONText.string("Item_\(end + 1)")), "continue": "-||"}"# : nil
        }
        let complete = wayOn.map { $0.contains("clcontinue") } == true ? "" : #""batchcomplete": true, "#
        return .json(
            status: 200,
            body: MockJSON.envelope(
                "{" + complete + (wayOn.map { #""continue": \#($0), "# } ?? "") + #""query": {"\#(list)": "#, window.itemsJSON, "}}"))
    }

    /// Roundup's REST collection (`/rest/data/issue?@page_size=&@page_index=`): `{"data": {"collection": […],
    /// "@links": {"self": [{"rel": "self", "uri": …}], "next": [{"rel": "next", "uri": …}]}, "@total_size": N}}` and an
    /// `X-Count-Total` header. **The next link is inside an array** under `next`, absent on the last page; the page
    /// parameters start with `@`; without `@page_size` every item comes in one page.
    package static func roundup(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        let others = context.query.items(excluding: ["@page_index"])
        func link(_ relation: String, page: Int) -> String {
            let query = MockQuery.queryString(others + [MockQuery.Item(name: "@page_index", value: String(page))])
            return #"[{"rel": "\#(relation)", "uri": \#(JSONText.string(context.baseURL + context.query.path + "?" + query))}]"#
        }
        let next = window.offset + window.count < window.total && window.count > 0 ? #", "next": \#(link("next", page: window.page + 1))"# : ""
        var response = MockResponse.json(
            status: 200,
            body: MockJSON.envelope(
                #"{"data": {"collection": "#, window.itemsJSON,
                #", "@links": {"self": \#(link("self", page: window.page))\#(next)}, "@total_size": \#(window.countStated)}}"#))
        response.setHeader("X-Count-Total", String(window.countStated))
        return response
    }
}

extension MockService {
    /// A MediaWiki generator batch a request names: its first item's offset and its size (`gapcontinue`, `gaplimit`).
    static func mediaWikiBatch(_ context: MockContext) -> (start: Int, size: Int)? {
        guard context.query.value("generator") == "allpages" else { return nil }
        let size = context.pageSize("gaplimit") ?? 10
        guard let token = context.query.value("gapcontinue") else { return (0, size) }
        guard token.hasPrefix("Item_"), let id = Int(token.dropFirst(5)), id >= 1 else { return (Int.max / 2, size) }
        return (min(id - 1, Int.max / 2), size)
    }

    func mediaWikiWindow(_ context: MockContext) -> Parsed {
        func badContinue(_ name: String) -> Parsed {
            .reply(.json(status: 200, body: Array((#"{"error": {"code": "badcontinue", "info": "Invalid continue param (\#(name)). "#
                + #"You should pass the original value returned by the previous query.", "docref": "See https://www.mediawiki.org/w/api.php"}}"#).utf8)))
        }
        func item(_ token: String?) -> Int? {
            guard let token else { return 0 }
            guard token.hasPrefix("Item_"), let id = Int(token.dropFirst(5)), id >= 1, id <= context.total + 1 else { return nil }
            return id - 1
        }
        guard let batch = Self.mediaWikiBatch(context) else {
            guard let size = context.pageSize("aplimit") else { return .reply(MockErrors.badParameter(self, "aplimit", context.query.value("aplimit") ?? "")) }
            guard let offset = item(context.query.value("apcontinue")) else { return badContinue("apcontinue") }
            return .window(MockWindow(offset: offset, size: size, total: context.total))
        }
        guard batch.start <= context.total else { return badContinue("gapcontinue") }
        guard let size = context.pageSize("cllimit") else { return .reply(MockErrors.badParameter(self, "cllimit", context.query.value("cllimit") ?? "")) }
        var offset = batch.start
        if let token = context.query.value("clcontinue") {
            // `<pageid>|<category>`: a page of the batch this request's generator makes, or the continuation is stale.
            guard let id = token.split(separator: "|").first.flatMap({ Int($0) }), id > batch.start, id <= batch.start + batch.size,
                id <= context.total
            else { return badContinue("clcontinue") }
            offset = id - 1
        }
        return .window(MockWindow(offset: offset, size: min(size, batch.start + batch.size - offset), total: context.total))
    }

    func roundupWindow(_ context: MockContext) -> Parsed {
        guard context.query.value("@page_size") != nil else {
            return .window(MockWindow(offset: 0, size: max(context.total, 1), total: context.total))
        }
        guard let size = context.pageSize("@page_size") else { return bad(context, "@page_size") }
        guard let page = context.pageNumber("@page_index") else { return bad(context, "@page_index") }
        return .window(MockWindow(page: page, size: size, total: context.total))
    }
}

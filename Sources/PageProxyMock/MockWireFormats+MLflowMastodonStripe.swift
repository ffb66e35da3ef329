import Foundation
import PageProxyCore

/// MLflow's tracking server, Mastodon and localstripe as scripts/real-upstreams found them (branch real12).
extension MockWireFormats {
    /// MLflow's `experiments/search`: `{"experiments": […], "next_page_token": "…"}` with a 2-space indent, the token
    /// (base64 of `{"offset": N}`) left out on the last page, and **`{}` for a page of no items**: protobuf's JSON
    /// leaves out an empty repeated field, so an empty search names no `experiments` at all.
    package static func mlflow(_ window: MockWindow) -> MockResponse {
        guard window.count > 0 else { return .json(status: 200, body: Array("{}".utf8)) }
        let token = window.isLast ? "" : ",\n  \"next_page_token\": \(JSONText.string(MockService.mlflowToken(offset: window.offset + window.size)))"
        return .json(status: 200, body: MockJSON.envelope("{\n  \"experiments\": ", window.itemsJSON, token + "\n}"))
    }

    /// Mastodon: a bare array and `Link: <…&max_id=LAST>; rel="next", <…&min_id=FIRST>; rel="prev"` (the request's
    /// other parameters kept, the keyset last). A full page always links on (Mastodon cannot tell it is the last), so
    /// a full last page is followed by `[]` with no `Link`; a short page has only `prev`. `Cache-Control: private,
    /// no-store`, and its rate-limit fields with **`X-RateLimit-Reset` as an ISO 8601 time**, not epoch seconds
    /// (300 requests per 5 minutes; `mock_remaining=N` says N are left; the reset here is the next 5-minute boundary
    /// at least a minute away, so that a test's walk cannot reach it).
    package static func mastodon(_ window: MockWindow, _ context: MockContext) -> MockResponse {
        let others = context.query.items(excluding: ["max_id", "min_id"])
        func url(_ name: String, _ id: Int) -> String {
            context.baseURL + context.query.path + "?" + MockQuery.queryString(others + [MockQuery.Item(name: name, value: String(id))])
        }
        var links: [String] = []
        if window.count == window.size { links.append(#"<\#(url("max_id", window.offset + window.count))>; rel="next""#) }
        if window.count > 0 { links.append(#"<\#(url("min_id", window.offset + 1))>; rel="prev""#) }
        var headers: [(name: String, value: String)] = [(name: "Cache-Control", value: "private, no-store")]
        if !links.isEmpty { headers.append((name: "Link", value: links.joined(separator: ", "))) }
        let now = Date().timeIntervalSince1970
        let reset = ((now + 60) / 300).rounded(.up) * 300
        headers += [
            (name: "X-RateLimit-Limit", value: "300"),
            (name: "X-RateLimit-Remaining", value: context.query.value("mock_remaining") ?? "299"),
            (name: "X-RateLimit-Reset", value: iso8601Microseconds(reset)),
        ]
        return .json(status: 200, body: window.itemsJSON, extraHeaders: headers)
    }

    /// localstripe: Stripe's list as `json.dumps(indent=2, sort_keys=True)` writes it, so `has_more` comes after the
    /// items, and with a `total_count`.
    package static func localstripe(_ window: MockWindow) -> MockResponse {
        let body = MockJSON.envelope(
            "{\n  \"data\": ", window.itemsJSON,
            ",\n  \"has_more\": \(!window.isLast),\n  \"object\": \"list\",\n  \"total_count\": \(window.total),\n  \"url\": \"/v1/customers\"\n}\n")
        return .json(status: 200, body: body)
    }

    /// `2026-10-14T19:10:00.000000Z`, as Mastodon writes `X-RateLimit-Reset` (Ruby's `iso8601(6)`).
    static func iso8601Microseconds(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let text = formatter.string(from: Date(timeIntervalSince1970: seconds.rounded(.down)))
        return text.dropLast() + ".000000Z"
    }
}

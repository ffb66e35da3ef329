import Foundation
import PageProxyCore

/// PageProxy's own per-request controls, namespaced so that they never collide with an upstream's parameters.
///
/// Each has a query form (`_format`, `_max_pages`, `_max_items`, `_fresh`, `_offset`, `_limit`, `_fields`,
/// `_explain`) and a header form (`PageProxy-Format`, …) for clients that cannot change URLs. The query wins over the header; `Accept: application/x-ndjson` asks
/// for NDJSON when neither names a format. Other parameters, underscored or not, pass to the upstream untouched.
struct ProxyControls: Sendable, Equatable {
    var format = OutputFormat.json
    var maxPages: Int?
    var maxItems: Int?
    var fresh = false
    /// The client's `Cache-Control` request directives beyond `no-cache` (RFC 9111 §5.2.1): `max-age=N` (N > 0),
    /// `min-fresh`, `only-if-cached`, `no-store`.
    var cacheDirectives = ClientCacheDirectives()
    /// `_offset` / `_limit`: a window of the items instead of all of them.
    var window: ItemWindow?
    /// `_fields`: the members of each item to keep.
    var fields: FieldSelection?
    /// `_explain`: an account of the walk instead of the items.
    var explain = false
    /// The client's query without PageProxy's controls, still percent-encoded.
    var upstreamQuery: String?

    /// The header forms of the controls that change a cacheable answer's body (`Vary` names them). `Fresh` changes
    /// how pages are read, not what they are; an `Explain` answer is `no-store`.
    static let answerSelectingHeaders = [
        "PageProxy-Format", "PageProxy-Max-Pages", "PageProxy-Max-Items", "PageProxy-Offset", "PageProxy-Limit", "PageProxy-Fields",
    ]

    struct Invalid: Error, Equatable {
        let control: String
        let message: String
    }

    /// A control's text and the name it was given by: the query's `_max_pages` or the header's `PageProxy-Max-Pages`.
    private struct Given {
        let text: String
        let name: String
    }

    static let names = ["_format", "_max_pages", "_max_items", "_fresh", "_offset", "_limit", "_fields", "_explain"]

    static func parse(_ request: HTTPRequestHead) throws(Invalid) -> ProxyControls {
        var controls = ProxyControls()
        var values: [String: String] = [:]
        var passed: [Substring] = []
        for pair in (request.query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            if names.contains(name) {
                // Two values for one control leave the intent unclear: say so rather than pick one.
                guard values[name] == nil else { throw Invalid(control: name, message: "\(name) is given more than once") }
                let raw = pair.dropFirst(name.count + 1)
                values[name] = PageURL.decodeQueryComponent(String(raw)) ?? String(raw)
            } else {
                passed.append(pair)
            }
        }
        controls.upstreamQuery = passed.isEmpty ? nil : passed.joined(separator: "&")
        let headers = request.headers
        // The query wins over the header; an error names the one the client wrote. A header given on several lines
        // is their values joined by commas, as RFC 9110 §5.3 makes them (attack11 L3: the first line won silently,
        // while the same values on one line were a 400).
        func given(_ control: String, _ header: String) -> Given? {
            if let text = values[control] { return Given(text: text, name: control) }
            let lines = headers.values(header)
            return lines.isEmpty ? nil : Given(text: lines.joined(separator: ", "), name: header)
        }

        if let format = given("_format", "PageProxy-Format") {
            guard let parsed = OutputFormat(rawValue: format.text.lowercased()) else {
                throw Invalid(control: "_format", message: "\(format.name) must be json or ndjson, not \"\(format.text.prefix(40))\"")
            }
            controls.format = parsed
        } else if headers.tokens("Accept").contains(where: Self.acceptsNDJSON) {
            controls.format = .ndjson
        }
        controls.maxPages = try positiveInteger(given("_max_pages", "PageProxy-Max-Pages"), control: "_max_pages")
        controls.maxItems = try positiveInteger(given("_max_items", "PageProxy-Max-Items"), control: "_max_items")
        controls.cacheDirectives = ClientCacheDirectives(headers)
        if let fresh = try flag(given("_fresh", "PageProxy-Fresh"), control: "_fresh") {
            controls.fresh = fresh
        } else {
            controls.fresh = controls.cacheDirectives.revalidates
        }
        controls.explain = try flag(given("_explain", "PageProxy-Explain"), control: "_explain") ?? false
        let offset = try wholeNumber(given("_offset", "PageProxy-Offset"), control: "_offset", least: 0)
        let limit = try wholeNumber(given("_limit", "PageProxy-Limit"), control: "_limit", least: 1)
        if offset != nil || limit != nil {
            // `_offset` alone: every item from there on; `_limit` alone: the first ones.
            controls.window = ItemWindow(offset: offset ?? 0, limit: limit ?? Int.max)
        }
        if let fields = given("_fields", "PageProxy-Fields") {
            do {
                controls.fields = try FieldSelection(parsing: fields.text)
            } catch {
                throw Invalid(control: "_fields", message: error.description)
            }
        }
        return controls
    }

    /// A yes-or-no control: empty, `1`, `true`, `yes` or `0`, `false`, `no`; nil when not given.
    private static func flag(_ given: Given?, control: String) throws(Invalid) -> Bool? {
        guard let given else { return nil }
        switch given.text.lowercased() {
        case "", "1", "true", "yes": return true
        case "0", "false", "no": return false
        default: throw Invalid(control: control, message: "\(given.name) must be true or false, not \"\(given.text.prefix(40))\"")
        }
    }

    /// Whether one `Accept` member names NDJSON with a non-zero weight (RFC 9110 §12.4.2: `q=0` means "not
    /// acceptable").
    /// Its parts are trimmed of HTTP's optional white space (SP, HTAB) by hand: Foundation's `trimmingCharacters(in:)`
    /// built its character set on the first request after a start, ~0.3 ms of it (issue 13, eighteenth pass).
    private static func acceptsNDJSON(_ member: String) -> Bool {
        let parts = member.split(separator: ";").map { trimmingOWS($0).lowercased() }
        guard let type = parts.first, type == "application/x-ndjson" || type == "application/jsonl" else { return false }
        let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
        return weight > 0
    }

    private static func trimmingOWS(_ part: Substring) -> Substring {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = part.firstIndex(where: { !isOWS($0) }), let last = part.lastIndex(where: { !isOWS($0) }) else { return "" }
        return part[first...last]
    }

    private static func positiveInteger(_ given: Given?, control: String) throws(Invalid) -> Int? {
        try wholeNumber(given, control: control, least: 1)
    }

    /// A whole number written as ASCII digits only (RFC 9110's `1*DIGIT`): `Int` also takes a sign, and `+5` was
    /// taken as 5, `-0` as 0.
    private static func wholeNumber(_ given: Given?, control: String, least: Int) throws(Invalid) -> Int? {
        guard let given else { return nil }
        let isDigits = !given.text.isEmpty && given.text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard isDigits, let value = Int(given.text), value >= least else {
            // Digits that do not fit are a whole number: say the bound it passed (attack12 U2).
            let problem = isDigits && Int(given.text) == nil
                ? "is too large: at most \(Int.max)" : "must be a whole number of at least \(least), in the digits 0-9 only"
            throw Invalid(control: control, message: "\(given.name) \(problem), not \"\(given.text.prefix(40))\"")
        }
        return value
    }
}

/// A control the client got wrong is a 400 naming it.
extension ProxyControls.Invalid: HTTPResponseError {
    var status: HTTPStatus { .badRequest }
    var code: String { "invalid_control" }
    var details: [(String, JSONFieldValue)] { [("control", .string(control))] }
}

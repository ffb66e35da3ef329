import PageProxyCore

/// The headers every page request of one client request carries: the route's `headers`, then the client's fields
/// named in `forwardHeaders`, each value byte for byte as received; a field in both is sent once, the client's when it
/// sent one. A field the client's `Connection` names is for its hop to PageProxy only and is never forwarded (RFC 9110
/// §7.6.1: a proxy must remove it; contract22 F1).
enum UpstreamHeaders {
    /// A client field that cannot be forwarded as it is.
    struct Refused: Error {
        let code: String
        let message: String
        let header: String
    }

    /// - Throws: `Refused` (a 400) when a forwarded field is repeated, or its value is not UTF-8.
    static func make(route: RouteConfig, request: HTTPRequestHead) throws(Refused) -> HTTPHeaders {
        var fields = HTTPHeaders()
        for (name, value) in route.headers { fields.set(name, value) }
        let hopOnly = route.forwardHeaders.isEmpty ? [] : request.headers.tokens("Connection")
        for name in route.forwardHeaders where !Self.isHopOnly(name, hopOnly) {
            let values = request.headers.values(name)
            // Two `Authorization` (or `Cookie`, …) fields leave it open which identity the upstream uses: servers
            // disagree (first, last, joined), and the cache key would hold both. RFC 6265 §5.4: one `Cookie` field.
            guard values.count <= 1 else {
                throw Refused(
                    code: "repeated_header", message: "the header \(name) is given \(values.count) times; send it once", header: name)
            }
            guard let value = values.first else { continue }
            // A client's `Accept` is what it wants from PageProxy (`application/x-ndjson` selects its stream): sent on
            // only when it names a JSON type the upstream can answer; otherwise the route's, or the transport's JSON
            // default, is (attack15 U1: an upstream that honours `Accept` answered 406 or another format).
            if HTTPHeaders.namesEqual(name, "Accept"), !Self.admitsJSON(value) { continue }
            // The value is forwarded exactly as received, or not at all: one that is not UTF-8 could not be.
            guard !request.fieldsNotUTF8.contains(where: { HTTPHeaders.namesEqual($0, name) }) else {
                throw Refused(
                    code: "invalid_header_value", message: "the value of \(name) is not UTF-8; it is not forwarded altered", header: name)
            }
            // A field the route also sets is replaced, not repeated: two `Authorization` fields upstream leave the
            // identity to the upstream's choice (attack14 L4). The route's value is the default, the client's wins.
            fields.set(name, value)
        }
        return fields
    }

    /// Whether `request` sends a field named `name` that goes upstream: present, and not named by its `Connection`.
    static func forwards(_ name: String, from request: HTTPRequestHead) -> Bool {
        request.headers.contains(name) && !isHopOnly(name, request.headers.tokens("Connection"))
    }

    /// Whether `name` is among `hopOnly`, the lowercased options of a `Connection` field.
    private static func isHopOnly(_ name: String, _ hopOnly: [String]) -> Bool {
        !hopOnly.isEmpty && hopOnly.contains(String(decoding: name.utf8.map(HTTPHeaders.lowercased), as: UTF8.self))
    }

    /// Whether an `Accept` value admits a JSON answer: it names `application/json`, a `+json` type, `application/*`
    /// or `*/*`.
    static func admitsJSON(_ accept: String) -> Bool {
        HTTPHeaders([("Accept", accept)]).tokens("Accept").contains { range in
            let type = range.prefix { $0 != ";" && $0 != " " && $0 != "\t" }
            return type == "application/json" || type.hasSuffix("+json") || type == "application/*" || type == "*/*"
        }
    }
}

/// A forwarded field that cannot be sent as it is is a 400 naming it.
extension UpstreamHeaders.Refused: HTTPResponseError {
    var status: HTTPStatus { .badRequest }
    var details: [(String, JSONFieldValue)] { [("header", .string(header))] }
}

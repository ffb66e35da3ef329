import PageProxyCore

/// The headers every page request of one client request carries: the route's `headers`, then the client's fields
/// named in `forwardHeaders`, each value byte for byte as received.
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
        for name in route.forwardHeaders {
            let values = request.headers.values(name)
            // Two `Authorization` (or `Cookie`, …) fields leave it open which identity the upstream uses: servers
            // disagree (first, last, joined), and the cache key would hold both. RFC 6265 §5.4: one `Cookie` field.
            guard values.count <= 1 else {
                throw Refused(
                    code: "repeated_header", message: "the header \(name) is given \(values.count) times; send it once", header: name)
            }
            guard let value = values.first else { continue }
            // The value is forwarded exactly as received, or not at all: one that is not UTF-8 could not be.
            guard !request.fieldsNotUTF8.contains(where: { HTTPHeaders.namesEqual($0, name) }) else {
                throw Refused(
                    code: "invalid_header_value", message: "the value of \(name) is not UTF-8; it is not forwarded altered", header: name)
            }
            fields.add(name, value)
        }
        return fields
    }
}

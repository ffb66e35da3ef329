/// What the configuration accepts as a header name, and which headers it may not set or forward.
enum ConfigHeaderRules {
    /// Connection-level headers the proxy manages itself (RFC 9110 §7.6.1, plus `Host` and `Content-Length`).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host",
        "content-length",
    ]

    /// Client fields PageProxy answers or decides itself, each with why forwarding it would break the walk or the
    /// cache. Refused in `forwardHeaders`; the route's own `headers` may not set those that break every walk
    /// (`breaksEveryWalk`); the others there are the operator's deliberate choice (`Accept-Encoding: identity`).
    static let answeredByProxy: [String: String] = {
        let conditional = "is a conditional field PageProxy answers itself, against the merged answer's ETag and "
            + "Last-Modified; forwarded, it would turn a page into a 304 or 412 that ends the walk with a 502"
        return [
            "if-none-match": conditional, "if-modified-since": conditional, "if-match": conditional,
            "if-unmodified-since": conditional, "if-range": conditional,
            "range": "asks for part of a page, but PageProxy needs every page whole (a 206 ends the walk); "
                + "the controls _offset and _limit select part of the answer",
            "accept-encoding": "is sent by PageProxy itself (identity: items are spliced from the bytes as they "
                + "arrive); a compressed page ends the walk with a 502",
            "expect": "is about a request body; page requests have none, and an upstream may answer 417",
            "proxy-authorization": "holds the client's credentials for a proxy on its way, not for the upstream "
                + "(RFC 9110 §11.7.2); forward Authorization or the upstream's own key field instead",
        ]
    }()

    /// Fields that set in a route's own `headers` would make every page a 304, 412 or 206 (retest12: a static
    /// `If-None-Match` or `Range` passed check-config).
    static let breaksEveryWalk: Set<String> = ["if-none-match", "if-modified-since", "if-match", "if-unmodified-since", "if-range", "range"]

    /// Why the route's own header `name` cannot be set (`headers`), or `nil` if it can.
    static func problem(setting name: String) -> String? {
        if let problem = problem(withName: name) { return problem }
        guard breaksEveryWalk.contains(name.lowercased()), let why = answeredByProxy[name.lowercased()] else { return nil }
        return "\"\(name)\" \(why); it cannot be set"
    }

    /// Why the client field `name` cannot be forwarded (`forwardHeaders`), or `nil` if it can.
    static func problem(forwarding name: String) -> String? {
        if let problem = problem(withName: name) { return problem }
        return answeredByProxy[name.lowercased()].map { "\"\(name)\" \($0); it cannot be forwarded" }
    }

    /// Whether `name` is an RFC 9110 token (`tchar`s only, at least one).
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// Why `name` cannot be a configured header, or `nil` if it can.
    static func problem(withName name: String) -> String? {
        guard isToken(name) else {
            return "\"\(name)\" is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)"
        }
        if hopByHop.contains(name.lowercased()) {
            return "\"\(name)\" is a hop-by-hop or connection header that the proxy manages itself"
        }
        return nil
    }

    /// Why a (possibly secret) header value is unusable, without repeating it; `nil` if it is fine.
    static func problem(withValue value: String) -> String? {
        for byte in value.utf8 where (byte < 0x20 && byte != 0x09) || byte == 0x7F {
            return byte == 0x0D || byte == 0x0A
                ? "the value contains a line break, which would split the header"
                : "the value contains a control character"
        }
        return nil
    }
}

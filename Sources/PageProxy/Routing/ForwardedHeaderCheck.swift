import PageProxyCore

/// Refuses a request whose forwarded headers (the route's `forwardHeaders`) could not go upstream as the client
/// sent them.
///
/// A repeated credential (two `Authorization` fields) would reach the upstream as two, and which one it honours is
/// its choice, not the client's; a value that is not UTF-8 would reach it rewritten with U+FFFD. Either way the
/// request is refused before any page is fetched, rather than forwarded changed.
enum ForwardedHeaderCheck {
    /// Why a request cannot be forwarded: a 400 with its own code.
    struct Refusal: Equatable {
        let code: String
        let message: String
    }

    /// Why `request` cannot be forwarded with the headers `names`, or nil when each is sent at most once, as UTF-8.
    static func refusal(for request: HTTPRequestHead, forwarding names: [String]) -> Refusal? {
        for name in names {
            let count = request.headers.values(name).count
            if count > 1 {
                return Refusal(
                    code: "repeated_forwarded_header",
                    message: "the request has \(count) \(name) header fields; the route forwards \(name) upstream, so send it once")
            }
            if request.fieldsNotUTF8.contains(where: { HTTPHeaders.namesEqual($0, name) }) {
                return Refusal(
                    code: "forwarded_header_not_utf8",
                    message: "the \(name) header's value is not valid UTF-8; the route forwards it upstream, and PageProxy "
                        + "forwards only values it can pass on unchanged")
            }
        }
        return nil
    }
}

/// What the configuration accepts as a header name, and which headers it may not set or forward.
enum ConfigHeaderRules {
    /// Connection-level headers the proxy manages itself (RFC 9110 §7.6.1, plus `Host` and `Content-Length`).
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host",
        "content-length",
    ]

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

import PageProxyCore

/// An absolute `http` or `https` upstream URL, kept both as written and split into the parts a client needs.
struct UpstreamURL: Sendable, Equatable {
    /// The URL as written in the file.
    var text: String
    /// `http` or `https`, lowercased.
    var scheme: String
    /// The host name or IPv4 literal; an IPv6 literal without its brackets.
    var host: String
    /// The explicit port, else 80 for `http` and 443 for `https`.
    var port: Int
    /// Starts with `/`; `/` when the URL has no path.
    var path: String
    /// The text after `?` (without it); `nil` when there is none.
    var query: String?

    /// The origin (`scheme://host[:port]`), spelled as the page URLs built from this URL spell theirs.
    var origin: String {
        PageURL(scheme: scheme, host: host, port: port, path: "/", query: nil).origin.description
    }

    /// Parses `text`, or returns a problem statement; the problem never repeats a password.
    static func parse(_ text: String) -> Result<UpstreamURL, Problem> {
        for scalar in text.unicodeScalars where scalar.value <= 0x20 || scalar.value >= 0x7F {
            return .failure(Problem("must not contain spaces, control or non-ASCII characters (percent-encode them)"))
        }
        guard let colon = text.firstIndex(of: ":") else {
            // The URL as a log shows it: a CI log of check-config must not print its query's token (attack16 U1).
            return .failure(Problem("expected an absolute http:// or https:// URL, found \"\(CredentialRedaction.redactURL(text))\""))
        }
        let scheme = text[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else {
            return .failure(Problem("the scheme must be http or https, found \"\(text[..<colon])\""))
        }
        var rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else {
            return .failure(Problem("expected an absolute URL starting \(scheme)://"))
        }
        rest = rest.dropFirst(2)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if authority.contains("@") {
            return .failure(Problem(
                "must not contain credentials (user:password@); send them with \"headers\", e.g. an Authorization header"))
        }
        if rest.contains("#") {
            return .failure(Problem("must not contain a fragment (#…); it is never sent to a server"))
        }
        guard case .success(let (host, explicitPort)) = splitAuthority(authority) else {
            return .failure(Problem("\"\(authority)\" is not a valid host[:port]"))
        }
        let remainder = rest[authorityEnd...]
        let path: Substring
        let query: String?
        if let mark = remainder.firstIndex(of: "?") {
            path = remainder[..<mark]
            query = String(remainder[remainder.index(after: mark)...])
        } else {
            path = remainder
            query = nil
        }
        return .success(UpstreamURL(
            text: text, scheme: scheme, host: host, port: explicitPort ?? (scheme == "https" ? 443 : 80),
            path: path.isEmpty ? "/" : String(path), query: query))
    }

    /// Why a URL was rejected.
    struct Problem: Error, Equatable {
        var message: String
        init(_ message: String) { self.message = message }
    }

    private static func splitAuthority(_ authority: Substring) -> Result<(String, Int?), Problem> {
        let invalid = Result<(String, Int?), Problem>.failure(Problem(""))
        var host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return invalid }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return invalid }
                portText = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return invalid }
        } else {
            if let colon = authority.firstIndex(of: ":") {
                host = authority[..<colon]
                portText = authority[authority.index(after: colon)...]
            } else {
                host = authority
            }
            let allowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "." || c == "_") }
            guard !host.isEmpty, host.allSatisfy(allowed) else { return invalid }
        }
        guard let portText else { return .success((String(host), nil)) }
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText),
              (1...65535).contains(port)
        else { return invalid }
        return .success((String(host), port))
    }
}

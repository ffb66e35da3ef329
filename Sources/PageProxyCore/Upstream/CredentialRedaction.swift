import Foundation

/// Removes credentials from what PageProxy logs or shows: query values whose names suggest a secret, members of an
/// upstream's error body named like one, and the credentials PageProxy itself sent upstream.
///
/// One list of query names serves the request log's `path`, error bodies' `upstream_url` and messages that quote a
/// link. A name is compared percent-decoded and lowercased, and it is a secret when it contains any entry of the
/// list: matching parts of names (`access_token`, `X-Amz-Signature`, `clientSecret`) over-redacts a few harmless
/// names (`monkey`), which costs a log reader little, where a missed secret would leak it.
package enum CredentialRedaction {
    /// Parts of query parameter names that mark a credential, lowercase.
    package static let secretNameParts = [
        "token", "key", "secret", "pass", "pwd", "signature", "sig", "jwt", "auth", "bearer", "credential", "session",
        "sessid", "cookie", "code", "otp", "ticket", "assertion", "saml", "hmac",
    ]

    /// Whether a query parameter named `name` (as sent, possibly percent-encoded) may carry a credential.
    package static func isSecretName(_ name: some StringProtocol) -> Bool {
        let decoded = (name.utf8.contains(UInt8(ascii: "%")) ? String(name).removingPercentEncoding : nil) ?? String(name)
        let lowered = decoded.lowercased()
        return secretNameParts.contains { lowered.contains($0) }
    }

    /// Names of JSON members whose values are secrets. Narrower than the query list: an error body's `code` or
    /// `documentation_url` is what the client needs to read.
    private static let secretFieldNames = [
        "token", "secret", "password", "passwd", "pwd", "jwt", "hmac", "authorization", "api_key", "apikey", "access_key",
        "private_key", "credential", "cookie", "session", "signature",
    ]

    /// Schemes of `Authorization` values; the word after one is a credential wherever it appears in a text.
    private static let authorizationSchemes = ["bearer ", "basic ", "token "]

    /// `query` with the value of every secret-looking parameter, of every parameter whose value is an `Authorization`
    /// value (`q=Bearer%20xyz`) and of every one whose value holds a credential by its shape (`x=eyJ….….…`,
    /// `SecretValueShape`), replaced by `REDACTED`. Pairs are separated by `&` or by `;` (which
    /// some servers still take: `?x=1;access_token=…`; attack7 F6).
    package static func redactQuery(_ query: String) -> String {
        var redacted = ""
        redacted.reserveCapacity(query.utf8.count)
        var start = query.startIndex
        for index in query.indices where query[index] == "&" || query[index] == ";" {
            redacted += redactPair(query[start..<index])
            redacted.append(query[index])
            start = query.index(after: index)
        }
        redacted += redactPair(query[start...])
        return redacted
    }

    private static func redactPair(_ pair: Substring) -> String {
        guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
        let value = pair[pair.index(after: equals)...]
        // `+` → space byte by byte (a `+` is never part of a longer UTF-8 sequence): Foundation's `replacingOccurrences`
        // gave the same string, and its first use in a process was ~0.2 ms of the first request (issue 13,
        // twenty-second pass).
        let spaced = String(decoding: value.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 }, as: UTF8.self)
        // A broken escape elsewhere in the value (`Bearer%20secret%`) must not hide the scheme's space (review11).
        let decoded = value.contains("%") ? spaced.removingPercentEncoding ?? spaced.replacingOccurrences(of: "%20", with: " ") : spaced
        let isAuthorization = authorizationSchemes.contains { decoded.lowercased().hasPrefix($0) }
        // A value shaped as a credential (a JWT, `ghp_…`) is one under any name (`SecretValueShape`).
        return isSecretName(pair[..<equals]) || isAuthorization || SecretValueShape.isFound(in: decoded)
            ? "\(pair[..<equals])=REDACTED" : String(pair)
    }

    /// Whether a JSON member called `name` holds a secret.
    package static func isSecretField(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return secretFieldNames.contains { lowered.contains($0) }
    }

    /// Whether a header called `name` carries a credential (`Authorization`, `Cookie`, `X-Api-Key`, `Private-Token`,
    /// `X-Api-Password`, `X-JWT`, `X-Amz-Signature`, `access_token` …), by the words of its name (`nameWords`), not
    /// by parts of them: its value is replaced wherever it appears in an error body, so a name that only contains a
    /// part of the query's list (review23 F7: `X-Country-Code`, `X-Passenger-Count`, `X-Design-Id`) must not hide text
    /// the client needs. A word is a secret's when it is one of `secretHeaderWords` (or its plural), or ends in one of
    /// `secretWordEndings` (`accesstoken`, `clientsecret`, `appkey`, `privatekey`, `xauth`); `code` (an OAuth
    /// authorization code) only as the whole name or after a word that makes it one (`X-Access-Code`), so that
    /// `X-Country-Code` and `X-Error-Code` stay clear.
    ///
    /// Endings, not beginnings (review25 M4): a name written as one word puts the credential's kind last (`appkey`,
    /// `secretkey`, `userkey`), while a beginning such as `pass` or `auth` also starts `passenger` and `author`.
    package static func isSecretHeader(_ name: String) -> Bool {
        let words = nameWords(name)
        let unprefixed = Array(words.drop(while: { $0 == "x" }))
        if unprefixed == ["code"] { return true }
        if let code = unprefixed.lastIndex(of: "code"), code > 0, wordsBeforeASecretCode.contains(unprefixed[code - 1]) { return true }
        return words.contains { word in
            secretHeaderWords.contains(word) || word.hasSuffix("s") && secretHeaderWords.contains(String(word.dropLast()))
                || secretWordEndings.contains { word.hasSuffix($0) }
        }
    }

    /// Words of header names that mark a credential, lowercase (attack16 M2: `*-Password`, `*-Pwd`, `*-JWT`,
    /// `*-Credential` too).
    private static let secretHeaderWords: Set<String> = [
        "token", "key", "apikey", "accesskey", "secret", "password", "passwd", "pass", "pwd", "passphrase", "signature", "sig",
        "jwt", "auth", "authorization", "bearer", "credential", "session", "sessid", "sessionid", "cookie", "otp", "totp",
        "ticket", "assertion", "saml", "hmac", "oauth", "authentication", "authn", "passcode",
    ]

    /// Endings of one word that mark a credential's name written as one word (review25 M4: `appkey`, `authkey`,
    /// `secretkey`, `licensekey`, `xauth`, `accesscode` were redacted before names were read by words). `key` also ends
    /// `monkey`; over-redacting such a header costs a reader little, where a missed one leaks an operator's credential.
    private static let secretWordEndings = ["token", "secret", "password", "passwd", "passcode", "key", "auth", "accesscode", "authcode"]

    /// Words after which `code` is a credential (`X-Access-Code`, `X-Auth-Code`), not a country's or an error's.
    private static let wordsBeforeASecretCode: Set<String> = ["access", "auth", "authorization", "pass", "secret", "security", "verification"]

    /// The words of a name, lowercased: split at `-`, `_`, `.` and spaces, and where a lowercase letter or a digit is
    /// followed by an uppercase one (`clientSecret`: `client`, `secret`).
    static func nameWords(_ name: String) -> [String] {
        var words: [String] = []
        var word = ""
        var previous: Character?
        for character in name {
            if character == "-" || character == "_" || character == "." || character == " " {
                if !word.isEmpty { words.append(word.lowercased()) }
                word = ""
            } else {
                if character.isUppercase, let previous, previous.isLowercase || previous.isNumber, !word.isEmpty {
                    words.append(word.lowercased())
                    word = ""
                }
                word.append(character)
            }
            previous = character
        }
        if !word.isEmpty { words.append(word.lowercased()) }
        return words
    }

    /// The values to hide from error bodies: every credential header's value and, for `Authorization: Bearer X`,
    /// `X` alone too (an upstream may quote the token without its scheme).
    /// - Parameter query: a query (`a=1&api_key=K`) whose secret-named values were sent too (a route's own URL): an
    ///   upstream's redirect may quote them back (review19 B3).
    package static func secrets(in headers: HTTPHeaders, query: String? = nil) -> [String] {
        var secrets: [String] = []
        for (name, value) in headers where isSecretHeader(name) {
            secrets.append(value)
            if let space = value.firstIndex(of: " ") { secrets.append(String(value[value.index(after: space)...])) }
        }
        // Pairs separated by `&` or `;`, as `redactQuery` reads them (review23 F7: a `;` one was not hidden).
        for pair in (query ?? "").split(whereSeparator: { $0 == "&" || $0 == ";" }) {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, isSecretName(String(parts[0]).removingPercentEncoding ?? String(parts[0])) else { continue }
            let value = String(parts[1]).removingPercentEncoding ?? String(parts[1])
            guard !value.isEmpty else { continue }
            // A value too short to hide wherever it stands (`PW` is in many words) is hidden where an upstream quotes
            // the query it received (retest16 L1: a client's `password=PW` came back in the 502's message): the pair.
            secrets.append(value.count < minimumSecretLength ? String(pair) : value)
        }
        // As a URL's query would carry them (`s3cr3t%2FV%2BA%3D`, or `%2f` in lower case): an upstream's redirect may
        // (attack14 M5).
        secrets += secrets.flatMap { secret -> [String] in
            guard let encoded = secret.addingPercentEncoding(withAllowedCharacters: unreserved), encoded != secret else { return [] }
            return [encoded, lowercasedEscapes(encoded)].filter { $0 != secret }
        }
        // Longest first, so that a whole value is replaced before a part of it.
        return secrets.filter { $0.count >= minimumSecretLength }.sorted { $0.count > $1.count }
    }

    /// The shortest value hidden wherever it appears in a text: a shorter one would blank parts of ordinary words.
    private static let minimumSecretLength = 4

    /// `encoded` with the hex digits of its escapes in lower case (`%2F` → `%2f`).
    private static func lowercasedEscapes(_ encoded: String) -> String {
        var result = ""
        var digitsLeft = 0
        for character in encoded {
            if character == "%" {
                digitsLeft = 2
                result.append(character)
            } else if digitsLeft > 0 {
                digitsLeft -= 1
                result += character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// RFC 3986 §2.3's unreserved characters: what a percent-encoded query value leaves as it is.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `text` with every secret, every word after an authorization scheme (`Bearer xyz`) and every token shaped as a
    /// credential (`SecretValueShape`: a JWT, `ghp_…`, `AKIA…`, whatever names it) replaced by `REDACTED`.
    package static func redactText(_ text: String, secrets: [String], schemes: Bool = true) -> String {
        var result = SecretValueShape.redact(text)
        for secret in secrets where result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: "REDACTED")
        }
        for scheme in authorizationSchemes where schemes {
            var searchStart = result.startIndex
            while let found = result.range(of: scheme, options: .caseInsensitive, range: searchStart..<result.endIndex) {
                let wordEnd = result[found.upperBound...].firstIndex { $0 == " " || $0 == "\"" || $0 == "'" || $0 == "," || $0 == "\\" } ?? result.endIndex
                if wordEnd > found.upperBound, result[found.upperBound..<wordEnd] != "REDACTED" {
                    result.replaceSubrange(found.upperBound..<wordEnd, with: "REDACTED")
                }
                searchStart = result.index(found.upperBound, offsetBy: "REDACTED".count, limitedBy: result.endIndex) ?? result.endIndex
            }
        }
        return result
    }

    /// A `WWW-Authenticate` value (RFC 9110 §11.6.1) as relayed to a client: the credentials PageProxy sent are
    /// replaced wherever they stand, and inside its quoted parameters (`error_description="token Bearer x"`) every
    /// word after an authorization scheme too; the challenge's own scheme and parameter names stay (`Bearer
    /// realm="api"` is what a client needs; attack11 M1: a gateway that quoted the key it was sent).
    package static func redactChallenge(_ value: String, secrets: [String]) -> String {
        let whole = redactText(value, secrets: secrets, schemes: false)
        // Each quoted string (RFC 9110 §5.6.4: a backslash quotes the next character, an escaped quote among them)
        // is redacted whole; what lies outside quotes is kept (review13 N3: splitting at every quote flipped inside and
        // outside at an escaped one). An unterminated quote runs to the end, redacted too.
        var result = ""
        var quoted = ""
        var inQuotes = false
        var escaped = false
        for character in whole {
            guard inQuotes else {
                result.append(character)
                inQuotes = character == "\""
                continue
            }
            if escaped {
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                result += redactText(quoted, secrets: []) + "\""
                quoted = ""
                inQuotes = false
                continue
            }
            quoted.append(character)
        }
        return inQuotes ? result + redactText(quoted, secrets: []) : result
    }

    /// A URL as written by an upstream (a `Location`), shown without user info and secret query values.
    package static func redactURL(_ text: String) -> String {
        var rest = Substring(text)
        var prefix = ""
        if let schemeEnd = rest.range(of: "://") {
            prefix = String(rest[..<schemeEnd.upperBound])
            rest = rest[schemeEnd.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        }
        guard let question = rest.firstIndex(of: "?") else { return prefix + rest }
        return prefix + rest[..<question] + "?" + redactQuery(String(rest[rest.index(after: question)...]))
    }
}

extension PageURL {
    /// The URL as shown in error bodies and logs: no user info (PageURL never keeps it) and no secret query values.
    public var redactedDescription: String {
        origin.description + path + (query.map { "?" + CredentialRedaction.redactQuery($0) } ?? "")
    }
}

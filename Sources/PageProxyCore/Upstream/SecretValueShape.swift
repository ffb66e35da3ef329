/// Values that are credentials by their shape, whatever they are named (retest16 U1: `?x=eyJ….….…&pat=ghp_…` reached
/// the log in clear, the names saying nothing): a JWT (`eyJ<header>.<payload>.<signature>`), GitHub's tokens (`ghp_`,
/// `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), Stripe's secret and restricted keys (`sk_live_`, `sk_test_`,
/// `rk_live_`, `rk_test_`), Slack's (`xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`) and AWS access key ids (`AKIA`/`ASIA`
/// and 16 capitals or digits).
///
/// Each shape needs its prefix at the start of a word and a body as long as the issuer's shortest, so that words that
/// only begin the same way stay (`eyJ` alone, an `eyJ…` id without two dots, `sk_test_mode`, `xoxb-1`, `AKIAFOO`).
/// Read as bytes: every logged path's query values pass here.
package enum SecretValueShape {
    /// Whether `text` holds a credential-shaped token anywhere.
    package static func isFound(in text: some StringProtocol) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if tokenEnd(in: bytes, at: index) != nil { return true }
            index += 1
        }
        return false
    }

    /// `text` with every credential-shaped token replaced by `REDACTED`.
    package static func redact(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        var copied = 0
        var index = 0
        while index < bytes.count {
            guard let end = tokenEnd(in: bytes, at: index) else {
                index += 1
                continue
            }
            result += bytes[copied..<index]
            result += Array("REDACTED".utf8)
            (copied, index) = (end, end)
        }
        guard copied > 0 else { return text }
        result += bytes[copied...]
        return String(decoding: result, as: UTF8.self)
    }

    /// Where the credential-shaped token starting at `start` ends, if one does.
    private static func tokenEnd(in bytes: [UInt8], at start: Int) -> Int? {
        // Cheap refusals first: most bytes start none of the prefixes, or are inside a word.
        guard let first = bytes.indices.contains(start) ? bytes[start] : nil, firstBytes.contains(first) else { return nil }
        if start > 0, isWordByte(bytes[start - 1]), !followsEscapedBoundary(bytes, start) { return nil }
        for shape in shapes where hasPrefix(bytes, shape.prefix, at: start) {
            if let end = shape.end(bytes, start + shape.prefix.count) { return end }
        }
        return nil
    }

    private struct Shape: Sendable {
        let prefix: [UInt8]
        /// Given the bytes and where the body starts (after the prefix), where the token ends; nil: not this shape.
        let end: @Sendable ([UInt8], Int) -> Int?

        init(_ prefix: String, _ end: @escaping @Sendable ([UInt8], Int) -> Int?) {
            self.prefix = Array(prefix.utf8)
            self.end = end
        }
    }

    private static let shapes: [Shape] =
        [Shape("eyJ", jwtEnd)]
        + ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"].map { Shape($0) { run(of: isAlphanumeric, in: $0, from: $1, atLeast: 30) } }
        + [Shape("github_pat_") { run(of: { isAlphanumeric($0) || $0 == UInt8(ascii: "_") }, in: $0, from: $1, atLeast: 22) }]
        + ["sk_live_", "sk_test_", "rk_live_", "rk_test_"].map { Shape($0) { run(of: isAlphanumeric, in: $0, from: $1, atLeast: 16) } }
        + ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-"].map {
            Shape($0) { run(of: { isAlphanumeric($0) || $0 == UInt8(ascii: "-") }, in: $0, from: $1, atLeast: 10) }
        }
        + ["AKIA", "ASIA"].map { Shape($0, awsKeyEnd) }

    private static let firstBytes = Set(shapes.map { $0.prefix[0] })

    /// A JWT's three base64url parts after `eyJ` (`{"` encoded): a header of at least 10 characters in all, a payload
    /// of at least 2, a signature of any length (an unsigned token's is empty).
    private static func jwtEnd(_ bytes: [UInt8], _ body: Int) -> Int? {
        guard let header = run(of: isBase64URL, in: bytes, from: body, atLeast: 7), header < bytes.count, bytes[header] == UInt8(ascii: "."),
            let payload = run(of: isBase64URL, in: bytes, from: header + 1, atLeast: 2), payload < bytes.count,
            bytes[payload] == UInt8(ascii: ".")
        else { return nil }
        return run(of: isBase64URL, in: bytes, from: payload + 1, atLeast: 0)
    }

    /// An AWS access key id: exactly 16 capitals or digits after its prefix, and no letter or digit after them.
    private static func awsKeyEnd(_ bytes: [UInt8], _ body: Int) -> Int? {
        guard let end = run(of: { isUppercase($0) || isDigit($0) }, in: bytes, from: body, atLeast: 16), end == body + 16 else { return nil }
        return end < bytes.count && isAlphanumeric(bytes[end]) ? nil : end
    }

    /// The end of the run of bytes `matching` from `start`, when it is at least `count` long.
    private static func run(of matching: (UInt8) -> Bool, in bytes: [UInt8], from start: Int, atLeast count: Int) -> Int? {
        var end = start
        while end < bytes.count, matching(bytes[end]) { end += 1 }
        return end - start >= count ? end : nil
    }

    private static func hasPrefix(_ bytes: [UInt8], _ prefix: [UInt8], at start: Int) -> Bool {
        start + prefix.count <= bytes.count && bytes[start..<start + prefix.count].elementsEqual(prefix)
    }

    private static func isUppercase(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isUppercase(byte) || isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
    }
    private static func isBase64URL(_ byte: UInt8) -> Bool { isAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") }
    /// A byte that continues a word: a token's prefix after one is inside another word (`meyJ…`, `task_live_…`).
    private static func isWordByte(_ byte: UInt8) -> Bool { isBase64URL(byte) }

    /// Whether a percent escape of a byte that ends a word comes just before `start` (`%2Cghp_…`, `Bearer%20eyJ…`,
    /// `%22sk_live_…`: an echoed raw query, retest18 U1): its hex digits are no word. An escaped word byte (`%41`,
    /// `A`) still joins the word, as it would decoded.
    private static func followsEscapedBoundary(_ bytes: [UInt8], _ start: Int) -> Bool {
        guard start >= 3, bytes[start - 3] == UInt8(ascii: "%"), let high = JSONStringDecoder.hexValue(bytes[start - 2]),
            let low = JSONStringDecoder.hexValue(bytes[start - 1])
        else { return false }
        return !isWordByte(UInt8(high << 4 | low))
    }
}

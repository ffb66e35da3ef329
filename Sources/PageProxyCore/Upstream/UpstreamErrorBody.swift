import Foundation

/// The body of an upstream's non-2xx answer, kept (bounded) so that an error can quote the upstream's own words.
///
/// DESIGN.md "Errors": an error carries "an excerpt of the upstream's own error body". JSON is quoted as JSON,
/// anything else as a short text excerpt; credentials are redacted either way (`excerpt(redacting:)`).
public struct UpstreamErrorBody: Sendable, Equatable {
    /// The first bytes of the body, at most `keptBytes`.
    public let bytes: [UInt8]
    /// The body's full length as received.
    public let length: Int
    /// The upstream's `Content-Type`, if any.
    public let contentType: String?
    /// The response fields that tell a client what to do about the status, relayed when the status is:
    /// `WWW-Authenticate` (a 401 must carry it, RFC 9110 §11.6.1), `Retry-After` (429, 503), `Allow` (405).
    package let relayedHeaders: HTTPHeaders

    /// The fields relayed with an upstream's status.
    static let relayedHeaderNames = ["WWW-Authenticate", "Retry-After", "Allow"]

    /// How much of a body is kept: enough for any API's error object, bounded whatever the upstream sends.
    static let keptBytes = 16 * 1024
    /// The longest text excerpt, and the longest JSON quoted as JSON (a longer one is quoted as text).
    static let excerptBytes = 2 * 1024
    static let maxQuotedJSONBytes = 8 * 1024

    package init(_ response: UpstreamResponse) {
        bytes = Array(response.body.prefix(Self.keptBytes))
        length = response.body.count
        contentType = response.headers["Content-Type"]
        var relayed = HTTPHeaders()
        for name in Self.relayedHeaderNames {
            for value in response.headers.values(name) { relayed.add(name, value) }
        }
        relayedHeaders = relayed
    }

    /// What an error response shows of the body.
    public enum Excerpt: Sendable, Equatable {
        /// No body.
        case none
        /// The body parsed as JSON, redacted and written again (compact, keys sorted).
        case json(String)
        /// The start of the body as text, redacted.
        case text(String)
    }

    /// The body as an error may show it: every value in `secrets` (the credentials PageProxy sent) and every
    /// credential-looking value replaced by `REDACTED`.
    public func excerpt(redacting secrets: [String]) -> Excerpt {
        guard !bytes.isEmpty else { return .none }
        if length == bytes.count, let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed) {
            let redacted = Self.redact(object, secrets: secrets)
            if let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]),
                data.count <= Self.maxQuotedJSONBytes
            {
                return .json(String(decoding: data, as: UTF8.self))
            }
        }
        // Cut on a character boundary: decoding replaces a split UTF-8 sequence at the end, which is then dropped.
        var text = String(decoding: bytes.prefix(Self.excerptBytes), as: UTF8.self)
        if text.hasSuffix("\u{FFFD}") { text.removeLast() }
        text = CredentialRedaction.redactText(text, secrets: secrets)
        return .text(length > Self.excerptBytes ? text + "…" : text)
    }

    /// The upstream's own one-line explanation, when its JSON has one at a usual place (`message`, `detail`,
    /// `error`, `error_description`, `title`, or the first of JSON:API's `errors`), redacted.
    public func summary(redacting secrets: [String]) -> String? {
        guard length == bytes.count,
            let object = try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
        else { return nil }
        func explanation(in object: Any) -> String? {
            guard let fields = object as? [String: Any] else { return nil }
            for key in ["message", "detail", "error_description", "error", "title"] {
                if let text = fields[key] as? String, !text.isEmpty { return text }
            }
            if let errors = fields["errors"] as? [Any], let first = errors.first { return explanation(in: first) }
            if let error = fields["error"] { return explanation(in: error) }
            return nil
        }
        return explanation(in: object).map { CredentialRedaction.redactText(String($0.prefix(300)), secrets: secrets) }
    }

    /// `object` with credential-named members and secret values replaced.
    private static func redact(_ object: Any, secrets: [String]) -> Any {
        switch object {
        case let fields as [String: Any]:
            var copy: [String: Any] = [:]
            for (key, value) in fields {
                copy[key] = CredentialRedaction.isSecretField(key) ? "REDACTED" : redact(value, secrets: secrets)
            }
            return copy
        case let values as [Any]:
            return values.map { redact($0, secrets: secrets) }
        case let text as String:
            return CredentialRedaction.redactText(text, secrets: secrets)
        default:
            return object
        }
    }
}

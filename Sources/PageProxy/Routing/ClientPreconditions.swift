import PageProxyCore
import PageProxyServer

/// RFC 9110 §13.2.2 — a client's preconditions on a GET or HEAD of an aggregate answer, in the RFC's order, evaluated
/// once the answer would be a 200 (§13.2.1: an answer that would be an error ignores them, so an upstream that fails
/// is still reported as such):
/// 1. `If-Match`: the answer's entity tag, strong comparison (§13.1.1), or `*` (any current answer): else 412;
/// 2. `If-Unmodified-Since`, when there is no `If-Match`: ignored, since aggregate answers have no `Last-Modified`
///    (§13.1.4: a recipient must ignore it without a modification date);
/// 3. `If-None-Match`: weak comparison, or `*`: a 304 (§13.1.2);
/// 4. `If-Modified-Since`, when there is no `If-None-Match`: ignored, for the same reason as step 2 (§13.1.3).
///
/// An NDJSON answer is streamed and has no entity tag: only `*` matches it, once its walk has ended well (there is
/// a current answer, and it would not have failed); `If-Match` naming tags fails, `If-None-Match` naming tags never
/// matches. `*` in a list with tags is not `*` (`AggregateETag.matches`). `_explain` answers do not weigh them.
enum ClientPreconditions {
    enum Outcome: Equatable {
        /// Send the answer.
        case proceed
        /// A 304: the client holds the answer.
        case notModified
        /// A 412: `If-Match` names no current answer.
        case failed
    }

    /// The outcome for a request with `headers`, whose answer's entity tag is `etag` (nil: it has none).
    static func evaluate(_ headers: HTTPHeaders, etag: String?) -> Outcome {
        if headers.contains("If-Match"), !AggregateETag.matches(ifMatch: headers.values("If-Match"), etag: etag) { return .failed }
        if headers.contains("If-None-Match"), AggregateETag.matches(ifNoneMatch: headers.values("If-None-Match"), etag: etag) {
            return .notModified
        }
        return .proceed
    }

    /// Answers a request whose preconditions are not met (`outcome` is not `.proceed`): the 304, with the 200's
    /// `fields` but `Content-Type` (RFC 9110 §15.4.5), or the 412.
    nonisolated(nonsending) static func answer(
        _ outcome: Outcome, fields: () -> HTTPHeaders, record: RequestRecord, response: consuming Response
    ) async -> RequestRecord {
        guard outcome == .failed else {
            await response.send(.notModified, headers: notModified(fields()), body: [])
            return record
        }
        return await response.send(failure, recording: record)
    }

    /// `answer(_:fields:record:response:)` with no wait (`Response.sendNow`), on the socket loop's thread.
    static func answerNow(_ outcome: Outcome, fields: () -> HTTPHeaders, record: RequestRecord, response: consuming Response) -> RequestRecord {
        guard outcome == .failed else {
            response.sendNow(.notModified, headers: notModified(fields()), body: [])
            return record
        }
        return response.sendNow(failure, recording: record)
    }

    /// The 304's fields: the 200's but `Content-Type` (RFC 9110 §15.4.5).
    private static func notModified(_ fields: HTTPHeaders) -> HTTPHeaders {
        var notModified = fields
        notModified.remove("Content-Type")
        return notModified
    }

    /// The 412 of a request whose `If-Match` names no current answer.
    static let failure = HTTPError(
        HTTPStatus(code: 412), code: "precondition_failed",
        message: "If-Match names no current version of this answer (strong comparison; an NDJSON answer has no entity tag, so only * matches it)")
}

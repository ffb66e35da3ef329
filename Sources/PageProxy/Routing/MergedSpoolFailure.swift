import PageProxyCore

/// DESIGN.md "Errors": a merged answer that cannot be held is a JSON error pointing at the streamed output.
///
/// 507 Insufficient Storage (RFC 4918 §11.5: the server "is unable to store the representation needed to complete
/// the request") says exactly what happened, for the cap and for a full disk alike: it is not the upstream's fault
/// (not 502), the request itself is fine (413 is about request content), and retrying the same request will not
/// help, which the message says along with what will: asking for NDJSON.
struct MergedSpoolFailure: HTTPResponseError {
    let error: SpoolError
    let route: String

    var status: HTTPStatus { .insufficientStorage }

    var code: String {
        switch error {
        case .tooLarge: "merged_answer_too_large"
        case .createFailed, .writeFailed, .readFailed: "spool_failed"
        }
    }

    var message: String {
        "\(error.description); ask for NDJSON instead (_format=ndjson or Accept: application/x-ndjson), which streams "
            + "the items as pages arrive and holds no more than a few pages"
    }

    var details: [(String, JSONFieldValue)] {
        var details: [(String, JSONFieldValue)] = [("route", .string(route))]
        if case .tooLarge(let limit) = error { details.append(("limit_bytes", .int(limit))) }
        return details
    }
}
